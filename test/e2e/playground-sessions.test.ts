/**
 * The playground's saved sessions and two models side by side, in Chromium against the built web host and
 * the bundled checkpoints (models/nano-sft, models/nano-rl-dense): a chat session saved under a name comes
 * back after a reload with its model, the model beside it, its messages and settings, and is deleted; one
 * prompt samples on both models at once, each streaming its own token strip, Stop stops both, and the page
 * fits 1024 px. With T1LAB_SCREENSHOTS=DIR the side by side view is photographed into DIR (docs/screenshots/
 * for the guide). Needs `npm run build`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const shots = process.env.T1LAB_SCREENSHOTS;
/** Long enough that Stop comes well before the end: 1500 steps take at least 75 s at STEP_DELAY_MS. */
const LONG = 1500;
/** The policy worker pauses this long after every decoding step, so both samples are still running when Stop is clicked. */
const STEP_DELAY_MS = 50;

beforeAll(async () => {
  ({ serve, browser, page } = await openLabInChromium(
    home.path,
    { viewport: { width: 1024, height: 800 }, deviceScaleFactor: 1 },
    { T1LAB_DECODE_STEP_DELAY_MS: String(STEP_DELAY_MS) },
  ));
}, 300_000);

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const row = (name: string) =>
  page.locator('[data-testid="model-row"]', {
    has: page.locator('td[data-key="name"]', { hasText: new RegExp(`^${name}$`) }),
  });
const pathOf = async (name: string) => (await row(name).getAttribute('data-path'))!;
const open = async () => {
  await page.goto(`${serve.url}#/models`);
  await row('nano-rl-dense').waitFor({ timeout: 30_000 });
  await page.getByTestId('playground').waitFor({ timeout: 30_000 });
};
const laneStrip = (i: number, streaming: '0' | '1') =>
  page.getByTestId('lane').nth(i).locator(`[data-testid="sampled-tokens"][data-streaming="${streaming}"] .token`);

describe('Playground: sessions and two models side by side', () => {
  test('one prompt samples on two models at once, each streaming its own token strip; Stop stops both; the page fits 1024 px', async () => {
    await open();
    await row('nano-sft').click();
    const rl = await pathOf('nano-rl-dense');
    await page.getByTestId('beside-model').selectOption(rl);
    await page
      .getByLabel('prompt', { exact: true })
      .fill('<|im_start|>user\nList the files in /app.<|im_end|>\n<|im_start|>assistant\n');
    await page.getByLabel('max tokens').fill(String(LONG));
    await page.getByRole('button', { name: 'Sample' }).click();
    // Both strips grow while both samples run: the two models sample at the same time.
    await expect
      .poll(async () => Math.min(await laneStrip(0, '1').count(), await laneStrip(1, '1').count()), { timeout: 60_000 })
      .toBeGreaterThanOrEqual(24);
    expect(
      await page.getByTestId('lane').evaluateAll((els) => els.map((e) => e.querySelector('.lane-head')?.textContent)),
    ).toEqual([expect.stringMatching(/^nano-sft/), expect.stringMatching(/^nano-rl-dense/)]);
    await page.getByTestId('stop-sample').click();
    const metas = page.getByTestId('lane-meta');
    await expect.poll(() => metas.count(), { timeout: 30_000 }).toBe(2);
    for (let i = 0; i < 2; i++) {
      const text = (await metas.nth(i).textContent())!;
      expect(text).toMatch(/^\d+ tokens, stopped, /);
      const n = Number(text.split(' ')[0]);
      expect(n).toBeLessThan(LONG);
      expect(await laneStrip(i, '0').count()).toBe(n);
      // Each token is coloured by its log-prob, as in the single view.
      const first = laneStrip(i, '0').first();
      expect(Number(await first.getAttribute('data-logprob'))).toBeLessThanOrEqual(0);
      expect(await first.getAttribute('style')).toMatch(/background[^;]*rgb/);
    }
    expect(await page.getByTestId('stop-sample').count()).toBe(0);
    expect(await page.getByTestId('logprob-legend').count()).toBe(1);
    // A click on a token lists the most likely tokens at its position, in that model's column.
    await laneStrip(1, '0').nth(1).click();
    await page.getByTestId('lane').nth(1).getByTestId('token-alternatives').waitFor();
    const overflow = (await page.evaluate(
      "[...document.querySelectorAll('.content, html')].map((e) => e.scrollWidth - e.clientWidth)",
    )) as number[];
    expect(
      overflow.every((o) => o <= 0),
      `overflow ${overflow.join(', ')}`,
    ).toBe(true);
    if (shots) {
      mkdirSync(shots, { recursive: true });
      await page.evaluate("document.querySelector('[data-testid=playground]').scrollIntoView()");
      await page.screenshot({ path: join(shots, 'playground-side-by-side-1024.png') });
    }
  });

  test('a chat session saved under a name comes back after a reload (models, messages, settings), and is deleted', async () => {
    await open();
    await row('nano-sft').click();
    const rl = await pathOf('nano-rl-dense');
    await page.getByTestId('beside-model').selectOption(rl);
    await page.getByLabel('chat').check();
    await page.getByLabel('message').fill('List the files in /tmp.');
    await page.getByLabel('max tokens').fill('6');
    await page.getByLabel('temperature', { exact: true }).fill('0');
    await page.getByLabel('seed').fill('7');
    await page.getByRole('button', { name: 'Sample' }).click();
    await expect.poll(() => page.getByTestId('lane-meta').count(), { timeout: 60_000 }).toBe(2);
    // The first model's reply joined the conversation.
    await expect.poll(() => page.locator('.chat-turn').count()).toBe(3);
    await page.getByTestId('save-session').click();
    await page.getByTestId('session-name').fill('tmp on both');
    await page.getByTestId('session-name').press('Enter');

    await page.reload();
    await page.getByTestId('playground').waitFor({ timeout: 30_000 });
    await row('nano-rl-dense').click(); // somewhere else first: opening the session brings its model back
    expect(await page.getByTestId('beside-model').inputValue()).toBe('');
    const saved = page.getByTestId('saved-session');
    expect(await saved.evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual(['tmp on both']);
    expect(await saved.textContent()).toContain('chat, 2 messages · nano-sft');
    await saved.getByTestId('open-session').click();
    await expect.poll(() => row('nano-sft').getAttribute('class')).toContain('selected');
    expect(await page.getByTestId('beside-model').inputValue()).toBe(rl);
    expect(await page.getByLabel('chat').isChecked()).toBe(true);
    expect(await page.locator('.chat-turn .chat-content').allTextContents()).toEqual([
      'You are a helpful terminal agent.',
      'List the files in /tmp.',
      expect.any(String),
    ]);
    expect(
      await Promise.all(
        ['max tokens', 'temperature', 'seed'].map((l) => page.getByLabel(l, { exact: true }).inputValue()),
      ),
    ).toEqual(['6', '0', '7']);

    await saved.getByTestId('delete-session').click();
    expect(await page.getByTestId('saved-session').count()).toBe(0);
    await page.reload();
    await page.getByTestId('playground').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('saved-session').count()).toBe(0);
  });
});
