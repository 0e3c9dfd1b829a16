/**
 * The machine beside a run's results in Chromium: an evaluation started from the page samples CPU, memory,
 * the eval worker's RSS, disk, load, episodes and sandboxes into its system.jsonl, and the run's overview
 * charts them (the Training page's charts, x by wall time) under a summary line; a run made before
 * evaluations were sampled shows a short note, no error.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { writeRunFolder } from '../helpers/runs';
import type { ServeProcess } from '../helpers/serve';
import { writeSuite } from '../helpers/tasks';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
const errors: string[] = [];
let suite: string;
let script: string;
const poll = <T>(fn: () => T | Promise<T>, timeout = 20_000) => expect.poll(fn, { timeout });

beforeAll(async () => {
  suite = writeSuite(join(home.path, 'suite'));
  script = join(home.path, 'agent.json');
  writeFileSync(
    script,
    JSON.stringify({
      turns: [{ action: { tool: 'bash', command: 'echo hello > hello.txt; sleep 1' } }, { action: { tool: 'submit' } }],
    }),
  );
  await writeRunFolder(join(data, 'runs'), '20261101-100000-eval-older', [{ task: 't0', resolved: [true] }]);
  // A sample every 200 ms: the three episodes take a few seconds.
  ({ serve, browser, page } = await openLabInChromium(
    data,
    { viewport: { width: 1024, height: 900 } },
    { T1LAB_SYSTEM_SAMPLE_MS: '200' },
  ));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const chart = (metric: string) =>
  page.locator(`[data-testid="run-system"] [data-testid="metric-chart"][data-metric="${metric}"]`);

describe('Run page: system metrics', () => {
  test('an evaluation from the page: CPU, memory, RSS, disk, load, episodes and sandboxes charted over time', async () => {
    await page.goto(`${serve.url}#/runs`);
    const form = page.getByTestId('new-eval');
    await form.locator('input[name="suite"]').fill(suite);
    await form.locator('input[name="policy"]').fill(`replay:${script}`);
    await form.getByRole('button', { name: 'Start evaluation' }).click();
    await page.getByTestId('run-detail').waitFor({ timeout: 60_000 });
    await poll(() => page.getByTestId('run-progress').getAttribute('data-state'), 180_000).toBe('done');
    const section = page.getByTestId('run-system');
    await poll(async () => Number(await section.getAttribute('data-samples'))).toBeGreaterThan(3);
    const metrics = await section
      .locator('[data-testid="metric-chart"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-metric')));
    expect(metrics).toEqual(
      expect.arrayContaining([
        'cpu_percent',
        'mem_used_gb',
        'rss_gb',
        'disk_free_gb',
        'load1',
        'episodes',
        'sandboxes',
      ]),
    );
    for (const m of ['cpu_percent', 'rss_gb', 'episodes', 'sandboxes']) {
      await poll(async () => Number(await chart(m).getAttribute('data-points'))).toBeGreaterThan(2);
      // Drawn: uPlot's canvas, with x ticks in wall time (m:ss) and y ticks read back from the axis.
      await chart(m).locator('canvas').first().waitFor();
      expect(await chart(m).getAttribute('data-x-axis')).toBe('wall');
    }
    // The eval worker ran episodes and their sandboxes: both charts rose above zero.
    await poll(
      async () => (await chart('episodes').getAttribute('data-y-range'))?.split(' ').map(Number)[1],
    ).toBeGreaterThanOrEqual(1);
    await poll(
      async () => (await chart('sandboxes').getAttribute('data-y-range'))?.split(' ').map(Number)[1],
    ).toBeGreaterThanOrEqual(1);
    expect(await chart('cpu_percent').getAttribute('data-y-range')).toBe('0 100');
    expect(await page.getByTestId('run-system-summary').textContent()).toMatch(
      /samples over \d+ s · CPU mean \d+%.* · episodes peak [1-9] · sandboxes peak [1-9]/,
    );
    // No GPU here: no GPU chart (absent, not zero).
    if (!(process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, 'nvidia-smi'))))
      expect(metrics.some((m) => m?.startsWith('gpu.'))).toBe(false);
  });

  test('a run made before sampling: a short note, no chart, no error', async () => {
    await page.goto(`${serve.url}#/runs/20261101-100000-eval-older`);
    await page.getByTestId('run-system-none').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('run-system-none').textContent()).toContain(
      'made before evaluations sampled the machine',
    );
    expect(await page.locator('[data-testid="run-system"] [data-testid="metric-chart"]').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
