/**
 * Runs pooled over seeds and the live report, in Chromium. Grouped by settings with the seeds pooled, the
 * runs table's group row shows each metric's mean over its min–max band; on the Training page, charted runs
 * that differ only in seed are one mean line over a shaded band. A report's chart of a training run draws
 * the step its run writes to metrics.jsonl while the report is open, and exports to one HTML file that
 * opens offline with the charts drawn. Needs `npm run build`.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { poll, useLabInChromium } from '../helpers/lab-suite';
import { exportReportOffline, waitForRunRows, writeEvalRuns, type EvalRunFixture } from '../helpers/runs-page';

/** Eval runs: two seeds of one setting (1 and 3 of 4 resolved), and one run at another temperature. */
const EVALS: EvalRunFixture[] = [
  { id: 'eval-seed1', policySettings: { temperature: 0.7, seed: 1 }, resolved: 1 },
  { id: 'eval-seed2', policySettings: { temperature: 0.7, seed: 2 }, resolved: 3 },
  { id: 'eval-greedy', policySettings: { temperature: 0, seed: 1 }, resolved: 2 },
];
/** Training runs: seeds 1 and 2 of one config (3 and 2 steps: different lengths), and another learning rate. */
const SEED1 = '20261201-100000-ppo-seed1';
const SEED2 = '20261201-100100-ppo-seed2';
const OTHER = '20261201-100200-ppo-otherlr';
const T0 = Date.parse('2026-12-01T10:00:00Z') / 1000;

const metricsLine = (step: number, reward: number) =>
  `${JSON.stringify({ step, tokens: step * 1000, wall_time: T0 + step, reward_dense: reward, pg_loss: 0.1 / step })}\n`;

function writeTrainingRun(
  data: string,
  id: string,
  seed: number,
  lr: number,
  rewards: number[],
  state: 'running' | 'completed',
): void {
  const dir = join(data, 'training', id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'run.json'),
    JSON.stringify({
      schema: 't1lab.training-run/1',
      id,
      stage: 'ppo',
      createdAt: '2026-12-01T10:00:00Z',
      config: { seed, optim: { lr }, schedule: { steps: 10 } },
      checkpoints: [],
    }),
  );
  // A running run names a live process (this test's), so the list keeps it running.
  writeFileSync(
    join(dir, 'status.json'),
    JSON.stringify({
      state,
      step: rewards.length,
      totalSteps: 10,
      ...(state === 'running' ? { pid: process.pid } : {}),
    }),
  );
  writeFileSync(join(dir, 'metrics.jsonl'), rewards.map((r, i) => metricsLine(i + 1, r)).join(''));
}

const lab = useLabInChromium({
  prepare: async (data) => {
    await writeEvalRuns(data, EVALS);
    writeTrainingRun(data, SEED1, 1, 1e-5, [1, 2, 3], 'running');
    writeTrainingRun(data, SEED2, 2, 1e-5, [3, 4], 'completed');
    writeTrainingRun(data, OTHER, 1, 3e-5, [0, 0, 0], 'completed');
  },
  page: { viewport: { width: 1280, height: 1000 } },
});

describe('runs pooled over seeds', () => {
  test('the runs table grouped by settings (seeds pooled): each metric as the mean over a min–max band', async () => {
    const { page, serve } = lab;
    await page.goto(`${serve.url}#/runs`);
    await waitForRunRows(page, EVALS.length);
    await page.getByTestId('runs-group').selectOption('seeds');
    const groups = page.getByTestId('run-group');
    await poll(() => groups.count()).toBe(2);
    const pooled = page.locator('[data-testid="run-group"][data-count="2"]');
    expect(await pooled.getByTestId('run-group-label').textContent()).toContain('temperature=0.7');
    const resolved = pooled.locator('td.group-spread[data-key="resolved"]');
    expect([
      await resolved.getAttribute('data-mean'),
      await resolved.getAttribute('data-min'),
      await resolved.getAttribute('data-max'),
    ]).toEqual(['0.5', '0.25', '0.75']);
    expect(await resolved.locator('.spread-mean').textContent()).toBe('50.0%');
    expect(await resolved.locator('.spread-band').textContent()).toBe('25.0%–75.0%');
    // A group of one run has its value and no band.
    const alone = page.locator('[data-testid="run-group"][data-count="1"] td.group-spread[data-key="resolved"]');
    expect(await alone.locator('.spread-band').count()).toBe(0);
    await page.getByTestId('runs-group').selectOption('none');
  });

  test('the Training charts pool the runs that differ only in seed: one mean line over a shaded band', async () => {
    const { page, serve } = lab;
    await page.goto(`${serve.url}#/training/${SEED1}/${encodeURIComponent(`o=${SEED2},${OTHER}&s=0`)}`);
    const chart = page.locator('[data-testid="metric-chart"][data-metric="reward_dense"]');
    await poll(() => chart.getAttribute('data-runs')).toBe('3');
    expect(await chart.getAttribute('data-bands')).toBe('0');
    await page.getByTestId('pool-seeds').check();
    // Seeds 1 and 2 pooled (one line with a band), the other learning rate alone.
    await poll(() => chart.getAttribute('data-bands')).toBe('1');
    expect(await chart.getAttribute('data-runs')).toBe('2');
    expect(await page.getByTestId('pool-item').getAttribute('data-runs')).toBe(`${SEED1} ${SEED2}`);
    expect(await page.getByTestId('pool-legend').textContent()).toContain('seeds 1, 2');
    // The pooled line's legend: at step 2 the mean of 2 and 4.
    await chart.scrollIntoViewIfNeeded();
    const box = (await chart.locator('.u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await poll(() =>
      chart.locator('.u-series:not(.context-series)').filter({ hasText: '(mean)' }).locator('.u-value').textContent(),
    ).toBe('3');
    // Kept in the address: a reload shows the band again.
    await poll(() => decodeURIComponent(page.url())).toContain('seeds=1');
    await page.reload();
    await poll(() =>
      page.locator('[data-testid="metric-chart"][data-metric="reward_dense"]').getAttribute('data-bands'),
    ).toBe('1');
  });
});

describe('a live report', () => {
  test("a report's chart draws the step its run writes while the report is open, and exports offline with it", async () => {
    const { page, serve, data } = lab;
    await page.goto(`${serve.url}#/runs`);
    await waitForRunRows(page, EVALS.length);
    await page.getByLabel('compare eval-seed1').check();
    await page.getByTestId('report-open').click();
    await page.getByTestId('report-title').fill('Seeds');
    await page.getByTestId('report-metrics').fill('reward_dense');
    await page.getByLabel(`report ${SEED1}`).check();
    const line = page.locator(
      `[data-testid="report-chart"][data-metric="reward_dense"] polyline.line[data-runs="${SEED1}"]`,
    );
    await poll(() => line.getAttribute('data-last-step')).toBe('3');
    expect(await line.getAttribute('data-points')).toBe('3');
    // The run writes its next step.
    appendFileSync(join(data, 'training', SEED1, 'metrics.jsonl'), metricsLine(4, 5));
    await poll(() => line.getAttribute('data-last-step')).toBe('4');
    expect(await line.getAttribute('data-points')).toBe('4');
    // Pooled with its other seed: one line over a band.
    await page.getByLabel(`report ${SEED2}`).check();
    await page.getByTestId('report-pool-seeds').check();
    await poll(() => page.locator('[data-testid="report-chart"] polygon.band').count()).toBe(1);

    const { html, offline, close } = await exportReportOffline(lab);
    expect(html).not.toMatch(/<script|<link|\ssrc=|https?:\/\//i);
    expect(await offline.locator('h1').textContent()).toBe('Seeds');
    const exported = offline.locator('svg.metric-svg[data-metric="reward_dense"] polyline.line');
    expect(await exported.getAttribute('data-runs')).toBe(`${SEED1} ${SEED2}`);
    expect(await exported.getAttribute('data-last-step')).toBe('4');
    expect(await offline.locator('svg.metric-svg polygon.band').count()).toBe(1);
    // The polyline is drawn: it has a size on the page.
    const drawn = await exported.boundingBox();
    expect(drawn!.width).toBeGreaterThan(100);
    expect(await offline.locator('table.runs tbody tr').count()).toBe(1);
    await close();
  });
});
