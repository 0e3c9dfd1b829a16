/**
 * The one compare view in Chromium: reached from the Runs page (three checked runs), from a run's Compare
 * box and from the Training page's checkpoints; paired tests (McNemar, paired bootstrap) as
 * `t1lab compare` computes them, a forest plot whose labels are readable on the dark page, a per-task diff
 * and the settings that differ. The old placeholders ("not computed yet", "comes with the statistics
 * issue") are gone.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { parseJsonOutput, runT1lab } from '../helpers/cli';
import { writeRunFolder } from '../helpers/runs';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';
import { writeTrainingRun } from '../helpers/training-run';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
const runs = join(data, 'runs');
const tasks = Array.from({ length: 16 }, (_, i) => `task-${i}`);
const category = (i: number) => (i % 2 ? 'security' : 'debugging');

beforeAll(async () => {
  await writeRunFolder(
    runs,
    'base',
    tasks.map((task, i) => ({ task, category: category(i), resolved: [i < 4] })),
  );
  await writeRunFolder(
    runs,
    'better',
    tasks.map((task, i) => ({ task, category: category(i), resolved: [i < 12] })),
  );
  await writeRunFolder(
    runs,
    'mixed',
    tasks.map((task, i) => ({ task, category: category(i), resolved: [i % 3 === 0] })),
  );
  // A setting that differs: the config diff names it.
  const file = join(runs, 'better', 'run.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  manifest.config.seed = 7;
  writeFileSync(file, JSON.stringify(manifest));
  writeTrainingRun(data, '20261201-100000-ppo-x', { steps: 5, checkpoints: [5] });
  ({ serve, browser, page } = await openLabInChromium(data, { viewport: { width: 1024, height: 900 } }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

describe('Compare view', () => {
  test('from the Runs page: three runs, paired tests against the baseline as the CLI computes them', async () => {
    await page.goto(`${serve.url}#/runs`);
    for (const id of ['base', 'better', 'mixed']) await page.getByLabel(`compare ${id}`).check();
    await page.getByTestId('compare-runs').click();
    const view = page.getByTestId('page-compare');
    await view.waitFor();
    expect(await view.getAttribute('data-runs')).toBe('base,better,mixed');
    expect(decodeURIComponent(page.url())).toContain('#/compare/base/better/mixed');
    await expect.poll(() => page.getByTestId('comparison').count(), { timeout: 20_000 }).toBe(2);
    const better = page.locator('[data-testid="comparison"][data-b="better"]');
    const text = await better.innerText();
    const cli = parseJsonOutput<{ diff: number; mcnemar: { p: number } }>(
      await runT1lab(['compare', 'base', 'better', '--json'], { env: { T1LAB_HOME: data } }),
    );
    expect(text).toContain(`${cli.diff >= 0 ? '+' : ''}${(cli.diff * 100).toFixed(1)} pp`);
    expect(text).toContain(`McNemar exact p = ${cli.mcnemar.p.toFixed(3)}`);
    expect(await better.getByTestId('forest-row').count()).toBe(2);
    // Forest labels in the page's light text colour, not SVG's default black on the dark page.
    const fill = await better
      .getByTestId('forest-label')
      .first()
      .evaluate(
        (el) => (globalThis as unknown as { getComputedStyle(e: unknown): { fill: string } }).getComputedStyle(el).fill,
      );
    const [r, g, b] = fill.match(/\d+/g)!.map(Number);
    expect(r! + g! + b!).toBeGreaterThan(3 * 150);
    // Per task: task-4 is resolved by `better` only; config diff names the seed.
    expect(await page.locator('[data-testid="task-diff"] tr[data-task="task-4"]').getAttribute('data-change')).toBe(
      'gained',
    );
    expect(await page.getByTestId('task-diff').locator('tbody tr').count()).toBe(16);
    const seed = page.locator('[data-testid="config-diff"] tr[data-path="seed"]');
    expect(await seed.locator('td').allTextContents()).toEqual(['seed', '1', '7', '1']);
    expect(await view.innerText()).not.toMatch(/not computed yet|statistics issue/);
    const overflow = (await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    )) as number;
    expect(overflow).toBeLessThanOrEqual(0);
  });

  test("from a run's Compare box and from the Training page's checkpoints", async () => {
    await page.goto(`${serve.url}#/runs/better/statistics`);
    await page.getByTestId('run-statistics').waitFor();
    await page.getByTestId('compare-with').selectOption('base');
    await page.getByTestId('page-compare').waitFor();
    expect(await page.getByTestId('page-compare').getAttribute('data-runs')).toBe('base,better');
    await expect.poll(() => page.getByTestId('comparison').count(), { timeout: 20_000 }).toBe(1);

    await page.goto(`${serve.url}#/training`);
    const panel = page.getByTestId('checkpoints-panel');
    await panel.waitFor({ timeout: 20_000 });
    await panel.getByTestId('compare-a').selectOption('base');
    await panel.getByTestId('compare-b').selectOption('mixed');
    await panel.getByTestId('compare').click();
    await page.getByTestId('page-compare').waitFor();
    expect(await page.getByTestId('page-compare').getAttribute('data-runs')).toBe('base,mixed');
    await expect.poll(() => page.getByTestId('comparison').count(), { timeout: 20_000 }).toBe(1);
    expect(await page.getByTestId('page-compare').innerText()).not.toMatch(/not computed yet|statistics issue/);
  });
});
