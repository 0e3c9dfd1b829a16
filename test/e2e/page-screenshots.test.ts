/**
 * Every page at 1024 and 1440 px in Chromium, on a small lab (two evaluations, one with the machine sampled
 * during it, a training run, two saved reports): no page scrolls sideways. With T1LAB_SCREENSHOTS=DIR each
 * page is photographed into DIR as `page-NAME-WIDTH.png` (docs/screenshots/ for the guide), and the run's
 * System section as `page-runs-system-WIDTH.png`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { writeRunFolder } from '../helpers/runs';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';
import { writeTrainingRun } from '../helpers/training-run';
import { createReport } from '../../electron/lab/runs/reports';
import type { RunSystemSample } from '../../electron/domain/system-samples';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
const shots = process.env.T1LAB_SCREENSHOTS;
const TRAINING = '20261201-100000-ppo-demo';
const SFT = '20261201-080000-eval-nano-sft-a1b2';
const RL = '20261201-090000-eval-nano-rl-dense-c3d4';

/** Two minutes of an evaluation's machine, a sample every 2 s: CPU and episodes rise and fall. */
function systemSamples(): RunSystemSample[] {
  const t0 = Date.parse('2026-12-01T09:00:00Z');
  return Array.from({ length: 60 }, (_, i) => {
    const busy = Math.sin((Math.PI * i) / 59);
    return {
      t: new Date(t0 + i * 2_000).toISOString(),
      ...(i > 0 ? { cpu_percent: Math.round(20 + 70 * busy) } : {}),
      mem_used_gb: Number((6 + 3 * busy).toFixed(2)),
      rss_gb: Number((0.4 + 0.6 * busy).toFixed(2)),
      disk_free_gb: Number((120 - i * 0.05).toFixed(2)),
      load1: Number((1 + 3 * busy).toFixed(2)),
      episodes: Math.round(4 * busy),
      sandboxes: Math.round(4 * busy),
      sandboxes_started: i % 8 === 0 ? 2 : 0,
    };
  });
}

beforeAll(async () => {
  const runs = join(data, 'runs');
  const tasks = Array.from({ length: 12 }, (_, i) => `task-${i}`);
  const category = (i: number) => ['debugging', 'security', 'file-operations'][i % 3]!;
  await writeRunFolder(
    runs,
    SFT,
    tasks.map((task, i) => ({ task, category: category(i), resolved: [i < 4, i < 3] })),
  );
  await writeRunFolder(
    runs,
    RL,
    tasks.map((task, i) => ({ task, category: category(i), resolved: [i < 9, i < 8] })),
  );
  writeFileSync(
    join(runs, RL, 'system.jsonl'),
    systemSamples()
      .map((x) => `${JSON.stringify(x)}\n`)
      .join(''),
  );
  writeTrainingRun(data, TRAINING, { steps: 40, rollouts: [20], checkpoints: [20, 40] });
  const report = { notes: '', metrics: ['reward_dense'], poolSeeds: false, columns: [] };
  createReport(data, 'SFT vs RL, dense reward', {
    ...report,
    title: 'SFT vs RL',
    evalRuns: [SFT, RL],
    trainingRuns: [TRAINING],
  });
  createReport(data, 'PPO demo', { ...report, title: 'PPO demo', evalRuns: [], trainingRuns: [TRAINING] });
  ({ serve, browser, page } = await openLabInChromium(data, {
    viewport: { width: 1024, height: 800 },
    deviceScaleFactor: 1,
  }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

/** `show`: a part of the page scrolled into view before the photograph. */
const PAGES: { name: string; hash: string; ready: string; show?: string }[] = [
  { name: 'tasks', hash: '#/tasks', ready: 'page-tasks' },
  { name: 'runs', hash: `#/runs/${RL}`, ready: 'run-detail' },
  { name: 'runs-system', hash: `#/runs/${RL}`, ready: 'run-system-summary', show: 'run-system' },
  { name: 'training', hash: `#/training/${TRAINING}`, ready: 'chart-grid' },
  {
    name: 'compare',
    hash: `#/compare/${SFT}/${RL}`,
    ready: 'comparison',
  },
  { name: 'models', hash: '#/models', ready: 'page-models' },
  { name: 'system', hash: '#/system', ready: 'page-system' },
];

describe('Pages at 1024 and 1440 px', () => {
  for (const width of [1024, 1440]) {
    test(`no page scrolls sideways at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 800 });
      for (const p of PAGES) {
        await page.goto(`${serve.url}${p.hash}`);
        await page.getByTestId(p.ready).first().waitFor({ timeout: 30_000 });
        await page.waitForTimeout(1_000);
        if (p.show) {
          // Its top at the top of the window, so the photograph shows the section whole.
          await page
            .getByTestId(p.show)
            .first()
            .evaluate((e) => e.scrollIntoView({ block: 'start' }));
          await page.waitForTimeout(300);
        }
        const [scroll, client, contentScroll, contentClient] = (await page.evaluate(
          "[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth, document.querySelector('.content')?.scrollWidth, document.querySelector('.content')?.clientWidth]",
        )) as number[];
        expect(scroll, `${p.name} at ${width}`).toBeLessThanOrEqual(client!);
        // The pages scroll inside .content: sideways there is sideways too.
        const wide =
          contentScroll! > contentClient!
            ? await page.evaluate(
                `[...document.querySelectorAll('.content *')].filter((e) => e.getBoundingClientRect().right > document.querySelector('.content').getBoundingClientRect().right + 1).slice(-5).map((e) => e.tagName + '.' + e.className + '[' + (e.getAttribute('data-testid') ?? '') + ']').join(' ')`,
              )
            : '';
        expect(contentScroll, `${p.name} at ${width} (.content): ${wide}`).toBeLessThanOrEqual(contentClient!);
        if (shots) {
          mkdirSync(shots, { recursive: true });
          await page.screenshot({ path: join(shots, `page-${p.name}-${width}.png`) });
        }
      }
    });
  }
});
