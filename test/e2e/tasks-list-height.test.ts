/**
 * The Tasks list uses the window's height, in Chromium at 1024×768 (where list and task stack): on opening
 * the page a screenful of task rows is visible, and still most of one with the sources panel open, instead
 * of a box of four rows (two with the panel open).
 */
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
const VIEWPORT = { width: 1024, height: 768 };

beforeAll(async () => {
  ({ serve, browser, page } = await openLabInChromium(join(home.path, 'data'), {
    viewport: VIEWPORT,
    deviceScaleFactor: 1,
  }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

/** Task rows wholly visible without scrolling anything: inside the window and every box that clips them. */
const visibleRows = async () =>
  (await page.evaluate(`(() => {
    const clips = (el) => { const o = getComputedStyle(el).overflowY; return o === 'auto' || o === 'scroll' || o === 'hidden'; };
    const rows = [...document.querySelectorAll('[data-testid="task-table"] tbody tr')];
    return rows.filter((row) => {
      const r = row.getBoundingClientRect();
      if (r.top < 0 || r.bottom > innerHeight) return false;
      for (let el = row.parentElement; el && el !== document.body; el = el.parentElement) {
        if (!clips(el)) continue;
        const box = el.getBoundingClientRect();
        if (r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) return false;
      }
      return true;
    }).length;
  })()`)) as number;

describe('the Tasks list at 1024×768', () => {
  test('shows a screenful of rows, and most of one with the sources panel open', async () => {
    await page.goto(`${serve.url}#/tasks`);
    await expect
      .poll(() => page.locator('[data-testid="task-table"] tbody tr').count(), { timeout: 60_000 })
      .toBeGreaterThan(40);
    const closed = await visibleRows();
    expect(closed).toBeGreaterThanOrEqual(14);
    await page.getByTestId('task-sources').locator('summary').click();
    await expect.poll(() => page.getByTestId('task-sources').getAttribute('open')).not.toBeNull();
    expect(await visibleRows()).toBeGreaterThanOrEqual(8);
  });
});
