/**
 * The Tasks page with a synthesized pack in the library: browse it by family and read its skew chart
 * (web mode in Debian's Chromium; needs `npm run build`).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';
import { libraryTaskCount } from '../helpers/tasks';

let home: { path: string; remove(): void };
let serve: ServeProcess;
let browser: Browser;
let page: Page;
let summary: {
  count: number;
  families: Record<string, number>;
  categories: Record<string, number>;
  difficulties: Record<string, number>;
};

beforeAll(async () => {
  home = makeTempDir('t1lab-e2e-synth-');
  mkdirSync(join(home.path, 'tasks'));
  let out = '';
  const code = await runCli(
    [
      'tasks',
      'synth',
      '--out',
      join(home.path, 'tasks', 'synth.jsonl'),
      '--count',
      '40',
      '--seed',
      '2',
      '--split',
      'eval',
      '--json',
    ],
    { out: (t) => (out += t), err: () => {}, interactive: false },
  );
  expect(code).toBe(0);
  summary = JSON.parse(out);
  ({ serve, browser, page } = await openLabInChromium(home.path));
  await page.goto(serve.url);
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

describe('the Tasks page with a synthesized pack', () => {
  it('browses the pack by family and shows its category and difficulty mix', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Tasks', exact: true }).click();
    const total = (await libraryTaskCount()) + summary.count;
    await page
      .getByTestId('task-count')
      .filter({ hasText: `${total} of ${total} tasks` })
      .waitFor({ timeout: 60_000 });
    await page.getByLabel('Source').selectOption('synth.jsonl');
    await page
      .getByTestId('task-count')
      .filter({ hasText: `${summary.count} of ${total} tasks` })
      .waitFor();

    // The skew chart of the pack: one bar per category with its count and share.
    const [topCategory, topCount] = Object.entries(summary.categories)[0]!;
    const row = page.getByTestId('skew-categories').locator(`[data-name="${topCategory}"] .skew-value`);
    expect(await row.textContent()).toBe(`${topCount} · ${((100 * topCount) / summary.count).toFixed(1)}%`);
    expect(await page.getByTestId('skew-difficulties').locator('.skew-row').count()).toBe(
      Object.keys(summary.difficulties).length,
    );
    const top5 =
      Object.values(summary.categories)
        .slice(0, 5)
        .reduce((a, b) => a + b, 0) / summary.count;
    expect(await page.getByTestId('top5-share').textContent()).toBe(`${(100 * top5).toFixed(1)}%`);

    // Browse by family: the list and the chart follow the filter.
    const [family, n] = Object.entries(summary.families).at(-1)!;
    await page.getByLabel('Family').selectOption(family);
    expect(await page.getByTestId('task-count').textContent()).toBe(`${n} of ${total} tasks`);
    expect(await page.getByTestId('skew-categories').locator('.skew-row').count()).toBe(1);
    await page.getByTestId('task-table').locator('tbody tr').first().click();
    const detail = page.getByTestId('task-detail');
    await detail.getByRole('heading').first().waitFor();
    expect(await detail.textContent()).toContain(family);
  });
});
