/**
 * Views that survive a reload, in Chromium: the Training page's opened rollout step and rollout (kept in the
 * address), and the runs table's filter, grouping, columns and sort (kept in the browser's storage).
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { writeRunFolder } from '../helpers/runs';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';
import { writeTrainingRun } from '../helpers/training-run';

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
const RUN = '20261201-100000-ppo-reload';
/** Eval runs: two named alpha (resolved 1 of 4 and 3 of 4, different suites) and one beta. */
const EVALS = [
  { id: 'alpha-low', suite: '/suites/one', resolved: 1 },
  { id: 'alpha-high', suite: '/suites/two', resolved: 3 },
  { id: 'beta-mid', suite: '/suites/one', resolved: 2 },
];

beforeAll(async () => {
  writeTrainingRun(data, RUN, { steps: 50, rollouts: [20, 40] });
  for (const [i, e] of EVALS.entries())
    await writeRunFolder(
      join(data, 'runs'),
      e.id,
      Array.from({ length: 4 }, (_, t) => ({ task: `task-${t}`, resolved: [t < e.resolved] })),
      { suite: e.suite, createdAt: `2026-12-01T0${i}:00:00Z` },
    );
  ({ serve, browser, page } = await openLabInChromium(data, { viewport: { width: 1280, height: 900 } }));
}, 120_000);

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

describe('a reload keeps the view', () => {
  test('Training: the opened rollout step and rollout', async () => {
    await page.goto(`${serve.url}#/training/${RUN}`);
    await page.getByTestId('rollout-step').waitFor({ timeout: 20_000 });
    await page.getByTestId('rollout-step').selectOption('40');
    await page.locator('[data-testid="rollout-row"][data-key="sum-numbers-g1"]').click();
    await page.getByTestId('rollout-viewer').waitFor();
    await poll(() => decodeURIComponent(page.url())).toContain('step=40&ep=sum-numbers-g1');
    await page.reload();
    await page.getByTestId('rollout-viewer').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('rollout-step').inputValue()).toBe('40');
    expect(
      await page.locator('[data-testid="rollout-row"][data-key="sum-numbers-g1"]').getAttribute('class'),
    ).toContain('selected');
  });

  test('Runs: the table’s filter, grouping, columns and sort', async () => {
    await page.goto(`${serve.url}#/runs`);
    const ids = () => page.getByTestId('run-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run')));
    await poll(ids).toHaveLength(EVALS.length);
    await page.getByTestId('runs-filter').fill('alpha');
    await page.getByTestId('runs-group').selectOption('suite');
    await page.getByTestId('runs-columns').selectOption('settings');
    await page.getByTestId('runs-columns').selectOption('results');
    await page.locator('table.runs th[data-sort="resolved"]').click();
    await page.locator('table.runs th[data-sort="resolved"]').click();
    await poll(() => page.locator('table.runs th[data-sort="resolved"]').getAttribute('aria-sort')).toBe('descending');
    const before = await ids();
    expect(before.sort()).toEqual(['alpha-high', 'alpha-low']);
    await page.getByTestId('runs-columns').selectOption('settings');
    await page.reload();
    await poll(ids).toHaveLength(2);
    expect(await page.getByTestId('runs-filter').inputValue()).toBe('alpha');
    expect(await page.getByTestId('runs-group').inputValue()).toBe('suite');
    expect(await page.getByTestId('runs-columns').inputValue()).toBe('settings');
    expect(await page.locator('table.runs th[data-sort="resolved"]').count()).toBe(0);
    await page.getByTestId('runs-columns').selectOption('results');
    expect(await page.locator('table.runs th[data-sort="resolved"]').getAttribute('aria-sort')).toBe('descending');
    expect(await page.getByTestId('run-group').count()).toBe(2);
  });
});
