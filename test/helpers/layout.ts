/** Layout checks shared by the e2e tests: a page must not scroll sideways (the window, nor .content where pages scroll). */
import type { Page } from 'playwright-core';

/** Pixels the page overflows sideways (0 when it fits), and the widest offenders' tags for the message. */
export async function sidewaysOverflow(page: Page): Promise<{ px: number; offenders: string }> {
  return (await page.evaluate(`(() => {
    const root = document.scrollingElement;
    const content = document.querySelector('.content');
    const px = Math.max(root.scrollWidth - root.clientWidth, content ? content.scrollWidth - content.clientWidth : 0);
    const right = (content ?? root).getBoundingClientRect().right;
    const offenders = px > 0 ? [...document.querySelectorAll('.content *')].filter((e) => e.getBoundingClientRect().right > right + 1).slice(-5).map((e) => e.tagName + '.' + e.className + '[' + (e.getAttribute('data-testid') ?? '') + ']').join(' ') : '';
    return { px, offenders };
  })()`)) as { px: number; offenders: string };
}
