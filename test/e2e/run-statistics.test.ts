/** The Runs page's statistics in Chromium: compare two runs (paired test, forest plot) and the power box. */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { writeRunFolder } from '../helpers/runs';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();

beforeAll(async () => {
  const runs = join(home.path, 'data', 'runs');
  const tasks = Array.from({ length: 16 }, (_, i) => `task-${i}`);
  const category = (i: number) => (i % 2 ? 'security' : 'debugging');
  await writeRunFolder(
    runs,
    'sft-eval',
    tasks.map((task, i) => ({ task, category: category(i), resolved: [i < 4] })),
  );
  await writeRunFolder(
    runs,
    'rl-eval',
    tasks.map((task, i) => ({ task, category: category(i), resolved: [i < 12] })),
  );
  ({ serve, browser, page } = await openLabInChromium(join(home.path, 'data')));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

describe('Runs page statistics', () => {
  test('compares a run with a baseline: paired difference, McNemar p, per-category forest plot, power', async () => {
    await page.goto(`${serve.url}#/runs`);
    await page.locator('[data-testid="run-row"][data-run="rl-eval"]').click();
    await page.getByTestId('run-tab-statistics').click();
    const panel = page.getByTestId('run-statistics');
    await panel.waitFor();
    // Power for this run's 16 tasks at 75% appears without any input.
    await expect.poll(() => page.getByTestId('power').innerText()).toContain('16 tasks at 75.0%');
    await panel.getByTestId('compare-with').selectOption('sft-eval');
    const comparison = page.getByTestId('comparison');
    await comparison.waitFor();
    const text = await comparison.innerText();
    expect(text).toContain('+50.0 pp');
    expect(text).toContain('McNemar exact p = 0.008');
    expect(await page.getByTestId('forest-row').count()).toBe(2);
  });
});
