/**
 * Training page figures (issue 14): the charts' data path on a 100k-step metrics.jsonl.
 * - host: reading the file into columns, then EMA + min/max decimation of every series (what a page load
 *   asks of the host), against JSON.parse of every line alone;
 * - page: time from navigation to every chart drawn (Chromium, the built web host) for a 100k-step run,
 *   against the same page on a 1k-step run; and the rebuild after a reload.
 * Needs `npm run build` first (the page is served from dist/).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SeriesStore } from '../../electron/lab/training/series-store';
import { seriesView } from '../../electron/lab/training/series-view';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { makeTempDir } from '../helpers/tmp';
import { metricsText, writeTrainingRun } from '../helpers/training-run';
import { median, type Bench } from './reporter';

const BIG = 100_000;
const SMALL = 1_000;

function time<T>(f: () => T): [T, number] {
  const t0 = performance.now();
  const r = f();
  return [r, performance.now() - t0];
}

const bench: Bench = {
  name: 'training-page',
  about:
    'issue 14: Training page data path on a 100k-step metrics.jsonl (host read + decimation, first render, reload)',
  async run(report, { quick }) {
    const tmp = makeTempDir('t1lab-bench-training-');
    try {
      const reps = quick ? 1 : 3;
      const text = metricsText(0, BIG);
      const file = join(tmp.path, 'metrics.jsonl');
      writeFileSync(file, text);
      const lines = text.split('\n').filter(Boolean);
      report.note(
        `${BIG.toLocaleString()} lines, ${(text.length / 2 ** 20).toFixed(1)} MiB, ${Object.keys(JSON.parse(lines[0]!) as object).length} top-level keys per line`,
      );

      const parses: number[] = [];
      const loads: number[] = [];
      for (let i = 0; i < reps; i++) {
        parses.push(time(() => lines.forEach((l) => JSON.parse(l)))[1]);
        loads.push(
          time(() => {
            const store = new SeriesStore(file);
            store.refresh();
            return seriesView('r', store, { maxPoints: 2000, smoothing: 0.6 });
          })[1],
        );
      }
      const parse = median(parses);
      const load = median(loads);
      report.figure({
        name: 'host: read + EMA + decimate every series',
        value: load,
        unit: 'ms',
        baseline: { name: 'JSON.parse of every line', value: parse },
        ratio: load / parse,
        goal: '<= 3x',
        met: load / parse <= 3,
      });

      const data = join(tmp.path, 'data');
      writeTrainingRun(data, 'big', { steps: BIG, state: 'completed' });
      writeTrainingRun(data, 'small', { steps: SMALL, state: 'completed' });
      const lab = await openLabInChromium(data, { viewport: { width: 1400, height: 1000 } });
      try {
        const { page, serve } = lab;
        const drawn = () =>
          page.waitForFunction(
            `(() => { const figs = [...document.querySelectorAll('[data-testid="metric-chart"]')]; return figs.length > 20 && figs.every((f) => f.querySelector('canvas')); })()`,
            undefined,
            {
              polling: 'raf',
              timeout: 120_000,
            },
          );
        const open = async (run: string, reload: boolean) => {
          await page.goto('about:blank');
          const t0 = performance.now();
          await page.goto(`${serve.url}#/training`);
          await page.locator(`[data-testid="training-run-row"][data-run="${run}"]`).click();
          const lastStep = String((run === 'big' ? BIG : SMALL) - 1);
          await page
            .locator(`[data-testid="metric-chart"][data-metric="reward_dense"][data-last-step="${lastStep}"]`)
            .waitFor({ timeout: 120_000 });
          await drawn();
          const first = performance.now() - t0;
          if (!reload) return first;
          const t1 = performance.now();
          await page.reload();
          await page.locator(`[data-testid="training-run-row"][data-run="${run}"]`).click();
          await page
            .locator(`[data-testid="metric-chart"][data-metric="reward_dense"][data-last-step="${BIG - 1}"]`)
            .waitFor({ timeout: 120_000 });
          await drawn();
          return performance.now() - t1;
        };
        const small: number[] = [];
        const big: number[] = [];
        const reloads: number[] = [];
        for (let i = 0; i < reps; i++) {
          small.push(await open('small', false));
          big.push(await open('big', false));
          reloads.push(await open('big', true));
        }
        const [s, b, r] = [median(small), median(big), median(reloads)];
        report.figure({
          name: `page: first render, ${BIG / 1000}k steps`,
          value: b,
          unit: 'ms',
          baseline: { name: `${SMALL / 1000}k steps`, value: s },
          ratio: b / s,
          goal: '<= 3x',
          met: b / s <= 3,
        });
        report.figure({
          name: `page: rebuild after reload, ${BIG / 1000}k steps`,
          value: r,
          unit: 'ms',
          baseline: { name: `${SMALL / 1000}k steps, first render`, value: s },
          ratio: r / s,
          goal: '<= 3x',
          met: r / s <= 3,
        });
      } finally {
        await closeLabInChromium(lab);
      }
    } finally {
      tmp.remove();
    }
  },
};

export default bench;
