/**
 * The Training page's chart axes in Chromium, on metrics that used to draw badly: a KL near 1e-5 with a
 * small negative step (a range near the data, a minus sign, no grey bands of minor ticks), a TIS weight
 * near 1 (labels with the digits that tell ticks apart), an explained variance whose labels are wider than
 * a fixed axis (never cut), an all-zero drift on a log scale (a linear axis and a note, not an empty
 * panel); and the held-out resolved rate on a 0-100% axis with both axis titles inside the chart.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { writeRunFolder } from '../helpers/runs';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';
import { T0, writeTrainingRun } from '../helpers/training-run';

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
const RUN = '20261201-100000-ppo-axes';

const PPO_KL = [1.2e-5, -1.5e-6, 2.1e-5, 8e-6, 3.4e-5, 1.6e-5];
const TIS_WEIGHT_MEAN = [1.00012, 0.99991, 1.00005, 0.99987, 1.00019, 1.00002];
const VF_EXPLAINED_VAR = [-0.0021, -0.0008, 0.0004, 0.0011, 0.0017, 0.0024];
/** The font the chart axes are drawn in (MetricChart's AXIS_FONT; uPlot's default family at 12 px). */
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif';

beforeAll(async () => {
  const dir = writeTrainingRun(data, RUN, { steps: PPO_KL.length, checkpoints: [4] });
  const rows = PPO_KL.map((kl, i) => ({
    step: i + 1,
    tokens: (i + 1) * 4096,
    wall_time: T0 / 1000 + i,
    ppo_kl: kl,
    tis_weight_mean: TIS_WEIGHT_MEAN[i],
    vf_explained_var: VF_EXPLAINED_VAR[i],
    loss_drift: 0,
    lr: 1e-4,
  }));
  writeFileSync(join(dir, 'metrics.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  // A checkpoint evaluation that resolved 3 of 16 tasks: its interval tops out near 40%.
  const tasks = Array.from({ length: 16 }, (_, i) => ({ task: `task-${i}`, resolved: [i < 3] }));
  await writeRunFolder(join(data, 'runs'), `eval-${RUN}-step-4`, tasks, {
    policy: `onnx:${join(dir, 'checkpoints', 'step-0000004')}`,
  });
  ({ serve, browser, page } = await openLabInChromium(data, { viewport: { width: 1280, height: 1000 } }));
  // Unsmoothed (s=0), so the drawn values are the logged ones; constant panels shown (const=1: loss_drift is 0 throughout).
  await page.goto(`${serve.url}#/training/${RUN}/${encodeURIComponent('s=0&const=1')}`);
  await chart('ppo_kl').waitFor({ timeout: 20_000 });
}, 120_000);

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const chart = (metric: string) => page.locator(`[data-testid="metric-chart"][data-metric="${metric}"]`);
/** Every y grid line's label ('' where a line has none), as the chart drew them. */
const yTicks = async (metric: string) => {
  await poll(() => chart(metric).getAttribute('data-y-ticks')).toBeTruthy();
  return (await chart(metric).getAttribute('data-y-ticks'))!.split('|');
};
const yRange = async (metric: string): Promise<[number, number]> => {
  const [min = NaN, max = NaN] = ((await chart(metric).getAttribute('data-y-range')) ?? '').split(' ').map(Number);
  return [min, max];
};

/** The widest y label in the axes' font against the axis's width less its tick and gap. */
async function labelRoom(metric: string): Promise<{ widest: number; room: number; labels: string[] }> {
  const labels = (await yTicks(metric)).filter(Boolean);
  const axis = Number(await chart(metric).getAttribute('data-y-axis-width'));
  const widest = (await page.evaluate(`(() => {
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = ${JSON.stringify(AXIS_FONT)};
    return Math.max(...${JSON.stringify(labels)}.map((t) => ctx.measureText(t).width));
  })()`)) as number;
  // uPlot's y axis: labels right-aligned against a 10 px tick and a 5 px gap.
  return { widest, room: axis - 15, labels };
}

describe('Training chart axes', () => {
  test('a KL near 1e-5 with a small negative: a range near the data, a minus sign, few grid lines', async () => {
    expect(await chart('ppo_kl').getAttribute('data-log')).toBe('true');
    const [min, max] = await yRange('ppo_kl');
    // The data span [-1.5e-6, 3.4e-5]: the axis may round out, not run a decade past either end.
    expect(min).toBeLessThanOrEqual(-1.5e-6);
    expect(min).toBeGreaterThanOrEqual(-3e-6);
    expect(max).toBeGreaterThanOrEqual(3.4e-5);
    expect(max).toBeLessThanOrEqual(1e-4);
    const ticks = await yTicks('ppo_kl');
    expect(
      ticks.some((t) => /^[\u2212-]\d/.test(t)),
      ticks.join(' '),
    ).toBe(true);
    // Every grid line labelled, and not so many that they read as bands.
    expect(ticks.every(Boolean), ticks.join('|')).toBe(true);
    expect(ticks.length).toBeLessThanOrEqual(6);
  });

  test('a TIS weight near 1 gets distinct tick labels', async () => {
    const labels = (await yTicks('tis_weight_mean')).filter(Boolean);
    expect(labels.length).toBeGreaterThanOrEqual(3);
    expect(new Set(labels).size, labels.join(' ')).toBe(labels.length);
  });

  test('no y label is wider than its axis (nothing cut at the panel edge)', async () => {
    for (const metric of ['vf_explained_var', 'ppo_kl', 'tis_weight_mean']) {
      const { widest, room, labels } = await labelRoom(metric);
      expect(widest, `${metric}: ${labels.join(' ')}`).toBeLessThanOrEqual(room);
    }
  });

  test('all-zero data on a log scale: a linear axis with a note, not an empty panel', async () => {
    const drift = chart('loss_drift');
    expect(await drift.getAttribute('data-log')).toBe('true');
    await poll(() => drift.getByTestId('scale-note').textContent()).toContain('every value is 0');
    expect(await drift.getAttribute('data-scale')).toBe('linear');
    const [min, max] = await yRange('loss_drift');
    expect(Number.isFinite(min) && Number.isFinite(max) && min <= 0 && max > 0, `${min} ${max}`).toBe(true);
    const ticks = (await yTicks('loss_drift')).filter(Boolean);
    expect(
      ticks.some((t) => /^0(\.0+)?$/.test(t)),
      ticks.join(' '),
    ).toBe(true);
  });

  test('the held-out resolved rate sits on 0-100% with both axis titles inside the chart', async () => {
    const svg = page.getByTestId('held-out-chart');
    await svg.waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('held-out-y-tick').allTextContents()).toEqual(['0%', '25%', '50%', '75%', '100%']);
    expect(await page.getByTestId('held-out-y-title').count()).toBe(1);
    const outside = await svg.evaluate((el) => {
      const box = el.getBoundingClientRect();
      return [...el.querySelectorAll('text')]
        .filter((t) => {
          const r = t.getBoundingClientRect();
          return (
            r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5
          );
        })
        .map((t) => t.textContent);
    });
    expect(outside).toEqual([]);
  });
});
