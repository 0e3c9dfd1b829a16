/**
 * The Training page as a run's home, in Chromium against the built web host: the selected run's config
 * (the TOML it ran with), hyperparameters and log; the held-out resolved rate of its evaluated checkpoints
 * plotted against step with 95% intervals; a rollout opening its episode (verifier output, recording) from
 * a real oracle episode; the New-run form closing once a real (tiny LM) run starts, with the new run
 * selected and its train.log shown; the runs table grouped by stage and tag; forest-plot text readable on
 * the dark page. At 1024 px nothing scrolls sideways.
 * With T1LAB_SCREENSHOTS=DIR the views are photographed into DIR (docs/screenshots/ for the guide).
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { wilson } from '../../electron/lab/runs/stats';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { runT1lab } from '../helpers/cli';
import { sidewaysOverflow } from '../helpers/layout';
import { writeRunFolder } from '../helpers/runs';
import type { ServeProcess } from '../helpers/serve';
import { writeSuite } from '../helpers/tasks';
import { makeTempDir } from '../helpers/tmp';
import { TINY_TEXT, writeTinyCheckpoint } from '../helpers/tiny-checkpoint';
import { writeTrainingRun } from '../helpers/training-run';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
const RUN = '20261201-100000-ppo-lineage';
const OTHER = '20261201-090000-ppo-other';
const tasks = Array.from({ length: 16 }, (_, i) => `task-${i}`);
/** Resolved tasks (of 16) of the checkpoint evals at steps 20 and 40. */
const RESOLVED = { 20: 4, 40: 12 } as const;
const evalId = (step: number) => `eval-${RUN}-step-${step}`;

beforeAll(async () => {
  const runDir = writeTrainingRun(data, RUN, { steps: 60, rollouts: [40], checkpoints: [20, 40] });
  writeTrainingRun(data, OTHER, { steps: 10 });
  // Checkpoint evals: their policy is the run's checkpoint folder (that names the run and the step).
  for (const step of [20, 40] as const)
    await writeRunFolder(
      join(data, 'runs'),
      evalId(step),
      tasks.map((task, i) => ({ task, category: i % 2 ? 'security' : 'debugging', resolved: [i < RESOLVED[step]] })),
      {
        policy: `onnx:${join(runDir, 'checkpoints', `step-${String(step).padStart(7, '0')}`)}`,
        createdAt: `2026-12-01T1${step === 20 ? 1 : 2}:00:00Z`,
        // Step 20's evaluation recorded no temperature (an onnx: policy then sampled at 1); step 40's is greedy.
        ...(step === 40 ? { policySettings: { temperature: 0, maxTokens: 576 } } : {}),
      },
    );
  // A real episode (oracle, sandboxed): its folder becomes a rollout's episode folder.
  const suite = writeSuite(join(home.path, 'suite'));
  const oracle = await runT1lab(
    ['eval', '--suite', suite, '--policy', 'oracle', '--out', join(data, 'runs', 'oracle-baseline'), '--json'],
    { env: { T1LAB_HOME: data }, timeoutMs: 120_000 },
  );
  expect(oracle.code, oracle.stderr).toBe(0);
  const records = readFileSync(join(data, 'runs', 'oracle-baseline', 'episodes.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { taskId: string; dir: string });
  const hello = records.find((r) => r.taskId === 'make-hello')!;
  cpSync(
    join(data, 'runs', 'oracle-baseline', hello.dir),
    join(runDir, 'rollouts', 'step-000040', 'episodes', 'make-hello-g0'),
    { recursive: true },
  );
  const tag = await runT1lab(['runs', 'tag', 'oracle-baseline', 'baseline'], { env: { T1LAB_HOME: data } });
  expect(tag.code, tag.stderr).toBe(0);
  ({ serve, browser, page } = await openLabInChromium(data, { viewport: { width: 1024, height: 900 } }));
}, 400_000);

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const shots = process.env.T1LAB_SCREENSHOTS;
async function shot(name: string, target?: ReturnType<Page['getByTestId']>) {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await (target ?? page).screenshot({ path: join(shots, `${name}.png`) });
}

async function expectNoSidewaysScroll(where: string) {
  const { px, offenders } = await sidewaysOverflow(page);
  expect(px, `${where} scrolls sideways by ${px} px: ${offenders}`).toBeLessThanOrEqual(0);
}

/** WCAG contrast ratio of two `rgb(r, g, b)` colours. */
function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = c
      .match(/\d+(\.\d+)?/g)!
      .slice(0, 3)
      .map((v) => {
        const s = Number(v) / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x! + 0.05) / (y! + 0.05);
}

describe('Training page: a run, its lineage and its episodes', () => {
  test("shows the selected run's config as TOML, its hyperparameters and its metrics tail", async () => {
    await page.goto(`${serve.url}#/training/${RUN}`);
    const details = page.locator(`[data-testid="run-details"][data-run="${RUN}"]`);
    await details.waitFor({ timeout: 20_000 });
    const toml = details.getByTestId('run-config-toml');
    await toml.waitFor();
    // The fixture's run.json config: { schedule: { steps: 60 }, seed: 1 }.
    expect(await toml.textContent()).toMatch(/seed = 1\s+\[schedule\]\s+steps = 60/);
    await shot('training-run-details', details);
    await details.getByTestId('details-tab-hyperparameters').click();
    expect(
      await details.locator('[data-testid="hyperparameter"][data-key="schedule.steps"] td').allTextContents(),
    ).toEqual(['schedule.steps', '60']);
    await details.getByTestId('hyperparameter-filter').fill('seed');
    expect(await details.getByTestId('hyperparameter').count()).toBe(1);
    await details.getByTestId('details-tab-log').click();
    const tail = (await details.getByTestId('metrics-tail').textContent())!.trim().split('\n');
    expect(tail).toHaveLength(20);
    expect(JSON.parse(tail.at(-1)!).step).toBe(59);
    await expectNoSidewaysScroll('the Training page with the run details');
  });

  test('plots held-out resolved rate against step with 95% intervals; a point opens its eval run', async () => {
    await page.goto(`${serve.url}#/training/${RUN}`);
    const chart = page.getByTestId('held-out-chart');
    await chart.waitFor({ timeout: 20_000 });
    const points = page.getByTestId('held-out-point');
    expect(await points.count()).toBe(2);
    for (const [i, step] of ([20, 40] as const).entries()) {
      const p = points.nth(i);
      const rate = RESOLVED[step] / 16;
      const [lo, hi] = wilson(rate, 16);
      expect(Number(await p.getAttribute('data-step'))).toBe(step);
      expect(Number(await p.getAttribute('data-rate'))).toBeCloseTo(rate, 9);
      expect(Number(await p.getAttribute('data-lo'))).toBeCloseTo(lo, 9);
      expect(Number(await p.getAttribute('data-hi'))).toBeCloseTo(hi, 9);
    }
    // Drawn where the numbers say: step 40 right of and above step 20, each interval around its point.
    const geometry = await points.evaluateAll((gs) =>
      gs.map((g) => {
        const c = g.querySelector('circle')!;
        const bar = g.querySelector('[data-testid="held-out-interval"]')!;
        return {
          cx: Number(c.getAttribute('cx')),
          cy: Number(c.getAttribute('cy')),
          top: Math.min(Number(bar.getAttribute('y1')), Number(bar.getAttribute('y2'))),
          bottom: Math.max(Number(bar.getAttribute('y1')), Number(bar.getAttribute('y2'))),
        };
      }),
    );
    expect(geometry[1]!.cx).toBeGreaterThan(geometry[0]!.cx);
    expect(geometry[1]!.cy).toBeLessThan(geometry[0]!.cy);
    for (const g of geometry) {
      expect(g.top).toBeLessThan(g.cy);
      expect(g.bottom).toBeGreaterThan(g.cy);
    }
    expect(await page.getByTestId('held-out-table').locator('tbody tr').count()).toBe(2);
    // Each point says how it was evaluated: points at different settings are not one curve.
    expect(await page.getByTestId('held-out-settings').allInnerTexts()).toEqual([
      'temperature 1 · 300 turns',
      'temperature 0 · 300 turns · 576 tokens',
    ]);
    await shot('training-held-out', page.getByTestId('held-out'));
    await expectNoSidewaysScroll('the Training page with the held-out chart');
    await points.nth(1).click();
    await page.locator(`[data-testid="run-detail"][data-run="${evalId(40)}"]`).waitFor({ timeout: 20_000 });
    // A run with no evaluated checkpoint says so.
    await page.goto(`${serve.url}#/training/${OTHER}`);
    await page.getByTestId('held-out-empty').waitFor({ timeout: 20_000 });
  });

  test('a rollout opens its episode: verifier verdict and output, and the recording replayed', async () => {
    await page.goto(`${serve.url}#/training/${RUN}`);
    await page.getByTestId('rollout-step').selectOption('40');
    await page.locator('[data-testid="rollout-row"][data-key="make-hello-g0"]').click();
    const episode = page.locator('[data-testid="rollout-episode"][data-key="make-hello-g0"]');
    await episode.waitFor({ timeout: 20_000 });
    expect(await episode.getByTestId('rollout-episode-outcome').textContent()).toMatch(/^resolved/);
    const statuses = await episode.getByTestId('rollout-assertions').locator('tbody td:nth-child(2)').allTextContents();
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 'passed')).toBe(true);
    await episode.getByTestId('rollout-verifier-output').locator('summary').click();
    expect((await episode.getByTestId('rollout-verifier-output').locator('pre').textContent())!.length).toBeGreaterThan(
      0,
    );
    await episode.getByTestId('rollout-load-recording').click();
    await episode.getByTestId('cast-player').waitFor({ timeout: 20_000 });
    await shot('training-rollout-episode', episode);
    // A rollout whose step kept only its tokens says so instead.
    await page.locator('[data-testid="rollout-row"][data-key="sum-numbers-g1"]').click();
    expect(await page.getByTestId('rollout-episode-missing').textContent({ timeout: 20_000 })).toContain(
      'only its tokens',
    );
    await expectNoSidewaysScroll('the Training page with an episode open');
  });

  test('the New-run form closes once a real run starts; the new run is selected and its log is shown', async () => {
    const model = writeTinyCheckpoint(join(home.path, 'tiny'));
    const corpus = join(home.path, 'corpus.txt');
    writeFileSync(corpus, Array.from({ length: 6 }, (_, k) => TINY_TEXT.replaceAll('/app', `/app${k}`)).join('\n'));
    await page.goto(`${serve.url}#/training/${RUN}`);
    const details = page.locator('details.new-run');
    await details.waitFor({ timeout: 20_000 });
    const isOpen = () => details.evaluate((el) => (el as unknown as { open: boolean }).open);
    // With runs in the lab the form starts folded (open only while there is no run).
    await page.locator(`[data-testid="training-run-row"][data-run="${RUN}"]`).waitFor({ timeout: 20_000 });
    await expect.poll(isOpen).toBe(false);
    await details.locator('summary').click();
    expect(await isOpen()).toBe(true);
    const form = page.getByTestId('new-training-run');
    await expect
      .poll(() => form.locator('textarea[name="config"]').inputValue(), { timeout: 20_000 })
      .toContain('stage = "lm"');
    const config = [
      'stage = "lm"',
      '[model]',
      `checkpoint = "${model}"`,
      '[data]',
      `path = "${corpus}"`,
      'eval_fraction = 0.3',
      '[train]',
      'steps = 4',
      'batch_size = 4',
      'micro_batch_size = 2',
      'eval_every = 2',
      'eval_batches = 1',
      'threads = 1',
      'provider = "cpu"',
      '[optimizer]',
      'lr = 0.01',
      '[schedule]',
      'kind = "constant"',
      'warmup_steps = 0',
      '[checkpoint]',
      'every = 2',
      '[lm]',
      'seq_len = 32',
    ];
    await form.locator('textarea[name="config"]').fill(config.join('\n'));
    await form.getByTestId('config-ok').waitFor({ timeout: 20_000 });
    await form.getByTestId('start-training').click();
    const selected = page.locator('[data-testid="training-run-row"].selected');
    await expect
      .poll(
        async () => {
          const error = await page.locator('.training-page > .error').allTextContents();
          if (error.length) throw new Error(`the page says: ${error.join(' | ')}`);
          return (await selected.getAttribute('data-run', { timeout: 1_000 }).catch(() => '')) ?? '';
        },
        { timeout: 180_000 },
      )
      .toMatch(/-lm-/);
    expect(await isOpen()).toBe(false);
    expect(await form.isVisible()).toBe(false);
    const runId = (await selected.getAttribute('data-run'))!;
    expect(decodeURIComponent(page.url())).toContain(`#/training/${runId}`);
    const runDetails = page.locator(`[data-testid="run-details"][data-run="${runId}"]`);
    await runDetails.waitFor();
    expect(await runDetails.getByTestId('run-config-toml').textContent()).toContain(`checkpoint = "${model}"`);
    await expect
      .poll(() => page.locator(`[data-testid="training-run-row"][data-run="${runId}"]`).getAttribute('data-state'), {
        timeout: 180_000,
      })
      .toBe('completed');
    await runDetails.getByTestId('details-tab-log').click();
    // The trainer's own words, from the run folder's train.log (re-read while the run is live, and on the tab).
    await expect
      .poll(
        async () =>
          (await runDetails
            .getByTestId('run-log')
            .textContent({ timeout: 1_000 })
            .catch(() => '')) ?? '',
        { timeout: 30_000 },
      )
      .toMatch(/lm: starting toward step 4[\s\S]*checkpoint at step 2[\s\S]*completed at step 4/);
  }, 300_000);
});

describe('Runs table and compare', () => {
  test('groups runs by stage and by tag; a group folds; nothing scrolls sideways at 1024 px', async () => {
    await page.goto(`${serve.url}#/runs`);
    await page.getByTestId('runs').waitFor({ timeout: 20_000 });
    await page.getByTestId('runs-group').selectOption('stage');
    const groups = page.getByTestId('run-group');
    await expect
      .poll(() =>
        groups.evaluateAll((gs) => gs.map((g) => `${g.getAttribute('data-group')}:${g.getAttribute('data-count')}`)),
      )
      .toEqual(['ppo:2', ':1']);
    const ppo = page.locator('[data-testid="run-group"][data-group="ppo"]');
    expect(await ppo.getByTestId('run-group-head').textContent()).toContain('mean resolved 50.0%');
    expect(
      (await ppo.getByTestId('run-row').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-run')))).sort(),
    ).toEqual([evalId(20), evalId(40)]);
    await ppo.getByTestId('run-group-head').click();
    expect(await ppo.getByTestId('run-row').count()).toBe(0);
    await ppo.getByTestId('run-group-head').click();
    expect(await ppo.getByTestId('run-row').count()).toBe(2);
    await expectNoSidewaysScroll('the Runs page grouped by stage');
    await shot('runs-grouped', page.getByTestId('runs'));

    await page.getByTestId('runs-group').selectOption('tag');
    await expect
      .poll(() =>
        groups.evaluateAll((gs) => gs.map((g) => `${g.getAttribute('data-group')}:${g.getAttribute('data-count')}`)),
      )
      .toEqual(['baseline:1', ':2']);
    expect(
      await page
        .locator('[data-testid="run-group"][data-group="baseline"] [data-testid="run-row"]')
        .getAttribute('data-run'),
    ).toBe('oracle-baseline');
    await page.getByTestId('runs-group').selectOption('training');
    await expect.poll(() => groups.evaluateAll((gs) => gs.map((g) => g.getAttribute('data-group')))).toEqual([RUN, '']);
    await expectNoSidewaysScroll('the Runs page grouped by training run');
  });

  test('forest-plot text (labels, values, ticks) is readable on the dark page', async () => {
    await page.goto(`${serve.url}#/compare/${evalId(20)}/${evalId(40)}`);
    const plot = page.getByTestId('forest-plot').first();
    await plot.waitFor({ timeout: 20_000 });
    const colours = await plot.locator('text').evaluateAll((texts) => {
      const g = globalThis as unknown as {
        getComputedStyle(e: unknown): { fill: string; backgroundColor: string };
        document: { body: unknown };
      };
      return {
        fills: texts.map((t) => g.getComputedStyle(t).fill),
        background: g.getComputedStyle(g.document.body).backgroundColor,
      };
    });
    expect(colours.fills.length).toBeGreaterThan(4);
    for (const fill of colours.fills)
      expect(contrast(fill, colours.background), `${fill} on ${colours.background}`).toBeGreaterThanOrEqual(4.5);
  });
});
