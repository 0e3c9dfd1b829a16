/**
 * The Training page in Chromium against the built web host, on training run folders in the trainer's
 * layout: every metric charted by group and updated live as metrics.jsonl grows, x axis / log scale /
 * overlay switches, a chart point opening that step's rollouts, a rollout's colouring switched, a real
 * checkpoint evaluated through the Runs service and two eval runs compared.
 * With T1LAB_SCREENSHOTS=DIR the page is photographed into DIR (docs/screenshots/ for the README).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PPO_METRIC_KEYS } from '../../electron/domain/training-metrics';
import { saveCheckpoint } from '../../native/model/checkpoint/index';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { testTokenizer, tinyConfig, tinyWeights, TEST_LAB_VERSION } from '../helpers/checkpoint';
import { runT1lab } from '../helpers/cli';
import type { ServeProcess } from '../helpers/serve';
import { writeSuite } from '../helpers/tasks';
import { makeTempDir } from '../helpers/tmp';
import { TINY_TEXT, writeTinyCheckpoint } from '../helpers/tiny-checkpoint';
import { appendMetrics, writeTrainingRun } from '../helpers/training-run';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
let suite: string;
let runDir: string;
const shots = process.env.T1LAB_SCREENSHOTS;

async function shot(name: string, target?: ReturnType<Page['getByTestId']>) {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await (target ?? page).screenshot({ path: join(shots, `training-${name}.png`) });
}

beforeAll(async () => {
  suite = writeSuite(join(home.path, 'suite'));
  runDir = writeTrainingRun(data, '20261201-100000-ppo-live', {
    steps: 60,
    totalSteps: 200,
    state: 'running',
    rollouts: [20, 40],
    checkpoints: [],
  });
  writeTrainingRun(data, '20261201-090000-ppo-ablation', { steps: 80, seed: 2 });
  // Real checkpoints (tiny, random): the eval run drives real episodes with them.
  const config = tinyConfig();
  for (const step of [20, 40])
    saveCheckpoint(join(runDir, 'checkpoints', `step-${String(step).padStart(7, '0')}`), {
      config,
      tokenizer: testTokenizer().json,
      parameters: tinyWeights(config, step),
      labVersion: TEST_LAB_VERSION,
    });
  // The baseline to compare with: the oracle on the same suite.
  const oracle = await runT1lab(
    ['eval', '--suite', suite, '--policy', 'oracle', '--out', join(data, 'runs', 'oracle-baseline'), '--json'],
    { env: { T1LAB_HOME: data }, timeoutMs: 120_000 },
  );
  expect(oracle.code, oracle.stderr).toBe(0);
  ({ serve, browser, page } = await openLabInChromium(data, { viewport: { width: 1400, height: 1000 } }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const chart = (metric: string) => page.locator(`[data-testid="metric-chart"][data-metric="${metric}"]`);

describe('Training page', () => {
  test('charts every PPO metric by group and follows the run live', async () => {
    await page.goto(`${serve.url}#/training`);
    await page.getByTestId('page-training').waitFor();
    const row = page.locator('[data-testid="training-run-row"][data-run="20261201-100000-ppo-live"]');
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 20_000 }).toBe('running');
    expect(await row.getByTestId('run-step').textContent()).toBe('59/200');
    await chart('reward_dense').waitFor({ timeout: 20_000 });
    for (const group of ['reward', 'policy', 'value', 'optim', 'tito', 'system'])
      expect(await page.getByTestId(`group-${group}`).count()).toBe(1);
    // Metrics that hold one value (loss_drift is 0 throughout here) are charted once asked for.
    expect(await chart('loss_drift').count()).toBe(0);
    await page.getByTestId('show-constant').locator('input').check();
    await chart('loss_drift').waitFor();
    for (const key of PPO_METRIC_KEYS) expect(await chart(key).count(), key).toBe(1);
    expect(await page.getByTestId('group-tito').locator('[data-metric="routing_agreement_layer.3"]').count()).toBe(1);
    expect(await chart('reward_dense').getAttribute('data-last-step')).toBe('59');
    await shot('charts');

    appendMetrics(runDir, 60, 63);
    await expect.poll(() => chart('reward_dense').getAttribute('data-last-step'), { timeout: 20_000 }).toBe('62');
    expect(Number(await chart('pg_loss').getAttribute('data-points'))).toBe(63);
    await expect.poll(() => row.getByTestId('run-step').textContent(), { timeout: 20_000 }).toBe('62/200');
  });

  test('switches the x axis and the log scale, and overlays another run', async () => {
    await page.getByTestId('x-axis').selectOption('tokens');
    await expect.poll(() => chart('entropy').getAttribute('data-x-axis')).toBe('tokens');
    const log = chart('entropy').getByTestId('log-toggle');
    expect(await chart('entropy').getAttribute('data-log')).toBe('false');
    await log.check();
    await expect.poll(() => chart('entropy').getAttribute('data-log')).toBe('true');
    await page.getByTestId('x-axis').selectOption('step');

    await page
      .locator('[data-testid="training-run-row"][data-run="20261201-090000-ppo-ablation"]')
      .getByTestId('overlay-toggle')
      .check();
    await expect.poll(() => chart('reward_dense').getAttribute('data-runs'), { timeout: 20_000 }).toBe('2');
    expect(await page.getByTestId('run-legend').locator('.legend-item').count()).toBe(2);
    await shot('overlay');
  });

  test('a click on a chart opens that step’s rollouts; a rollout is coloured by advantage, then by log-prob', async () => {
    // The chart can sit below the fold (the toolbar wraps at this width): a click needs it on screen.
    await chart('reward_dense').scrollIntoViewIfNeeded();
    const box = (await chart('reward_dense').locator('.u-over').boundingBox())!;
    // Step 40 of 0..62 lies at 40/62 of the plot's width.
    await page.mouse.click(box.x + (box.width * 40) / 62, box.y + box.height / 2);
    const table = page.getByTestId('rollout-table');
    await table.waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('rollout-step').inputValue()).toBe('40');
    expect(await page.getByTestId('rollout-row').count()).toBe(4);
    // Sorted by reward, best first.
    await page.getByTestId('rollout-row').first().click();
    const viewer = page.getByTestId('rollout-viewer');
    await viewer.waitFor();
    expect(await viewer.getAttribute('data-colour-by')).toBe('advantage');
    const sampled = viewer.locator('[data-testid="rollout-token"][data-mask="1"]').first();
    const masked = viewer.locator('[data-testid="rollout-token"][data-mask="0"]').first();
    expect(await masked.getAttribute('data-colour')).toBe('');
    const byAdvantage = await sampled.getAttribute('data-colour');
    expect(byAdvantage).toMatch(/^rgb\(/);
    expect(await viewer.getByTestId('turn-boundary').count()).toBe(2);
    expect(await viewer.getByTestId('ledger-event').first().textContent()).toMatch(/CLEAN|REPAIR/);
    expect(await page.getByTestId('token-legend').textContent()).toContain('advantage');
    await sampled.click();
    await page.getByTestId('token-details').getByTestId('expert-heatmap').waitFor();
    await shot('rollout-advantage', viewer);

    await page.getByTestId('colour-logprob').click();
    expect(await viewer.getAttribute('data-colour-by')).toBe('logprob');
    expect(await page.getByTestId('token-legend').textContent()).toContain('log-prob');
    const colours = await viewer
      .locator('[data-testid="rollout-token"][data-mask="1"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-colour')));
    expect(colours.every((c) => c?.startsWith('rgb('))).toBe(true);
    expect(await sampled.getAttribute('data-colour')).not.toBe(byAdvantage);
  });

  test('evaluates a checkpoint on a suite and compares two eval runs', async () => {
    const panel = page.getByTestId('checkpoints-panel');
    await panel.locator('input[name="eval-suite"]').fill(suite);
    await panel.locator('input[name="eval-max-turns"]').fill('1');
    const row = panel.locator('[data-testid="checkpoint-row"][data-step="40"]');
    await row.getByTestId('evaluate').click();
    const evaluation = row.getByTestId('checkpoint-eval').first();
    await evaluation.waitFor({ timeout: 60_000 });
    await expect.poll(() => evaluation.getAttribute('data-state'), { timeout: 180_000 }).toBe('complete');
    const evalRun = (await evaluation.getAttribute('data-run'))!;

    await panel.getByTestId('compare-a').selectOption('oracle-baseline');
    await panel.getByTestId('compare-b').selectOption(evalRun);
    await panel.getByTestId('compare').click();
    // The one compare view, with the paired tests (no "comes with the statistics issue" placeholder).
    await page.getByTestId('page-compare').waitFor();
    const comparison = page.getByTestId('comparison');
    await comparison.waitFor();
    expect(await comparison.innerText()).toContain('100.0%');
    expect(await comparison.innerText()).toMatch(/McNemar exact p|z-test p/);
    expect(await page.getByTestId('task-diff').locator('tbody tr').count()).toBe(3);
    expect(await page.getByTestId('forest-row').count()).toBe(2);
    expect(await page.getByTestId('page-compare').innerText()).not.toContain('statistics issue');
    await shot('comparison', page.getByTestId('page-compare'));
    await page.goto(`${serve.url}#/training`);
  });

  test('starts a tiny LM run from the page, follows its loss live, pauses and resumes it', async () => {
    const model = writeTinyCheckpoint(join(home.path, 'tiny'));
    const corpus = join(home.path, 'corpus.txt');
    writeFileSync(corpus, Array.from({ length: 6 }, (_, k) => TINY_TEXT.replaceAll('/app', `/app${k}`)).join('\n'));
    if (!page.url().includes('#/training')) await page.goto(`${serve.url}#/training`);
    await page.getByTestId('page-training').waitFor();
    const form = page.getByTestId('new-training-run');
    if (!(await form.isVisible())) await page.locator('details.new-run > summary').click();
    // The editor starts from the stage's default config and checks it as the trainer will.
    await expect
      .poll(() => form.locator('textarea[name="config"]').inputValue(), { timeout: 20_000 })
      .toContain('stage = "lm"');
    await form.locator('textarea[name="config"]').fill('stage = "lm"\n[train]\nsteps = "many"\nbogus = 1\n');
    const errors = form.getByTestId('config-errors');
    await expect.poll(() => errors.textContent(), { timeout: 20_000 }).toContain('train.steps');
    expect(await errors.textContent()).toContain('train.bogus: unknown key');
    expect(await form.getByTestId('start-training').isDisabled()).toBe(true);

    await form
      .locator('textarea[name="config"]')
      .fill(
        [
          'stage = "lm"',
          '[model]',
          `checkpoint = "${model}"`,
          '[data]',
          `path = "${corpus}"`,
          'eval_fraction = 0.3',
          '[train]',
          'steps = 100000',
          'batch_size = 4',
          'micro_batch_size = 2',
          'eval_every = 20',
          'eval_batches = 1',
          'threads = 1',
          'provider = "cpu"',
          '[optimizer]',
          'lr = 0.01',
          '[schedule]',
          'kind = "constant"',
          'warmup_steps = 0',
          '[checkpoint]',
          'every = 50',
          '[lm]',
          'seq_len = 32',
        ].join('\n'),
      );
    await form.getByTestId('config-ok').waitFor({ timeout: 20_000 });
    await form.getByTestId('start-training').click();

    // The new run becomes the page's run (its id names its stage).
    const actions = page.locator('[data-testid="run-actions"][data-run*="-lm-"]');
    await expect
      .poll(
        async () => {
          const error = await page.locator('.training-page > .error').allTextContents();
          if (error.length) throw new Error(`the page says: ${error.join(' | ')}`);
          return actions.getAttribute('data-state', { timeout: 1_000 }).catch(() => null);
        },
        { timeout: 180_000 },
      )
      .toBe('running');
    const loss = chart('loss');
    await loss.waitFor({ timeout: 120_000 });
    const stepOf = async () => Number((await loss.getAttribute('data-last-step')) || -1);
    const first = await stepOf();
    await expect.poll(stepOf, { timeout: 120_000 }).toBeGreaterThan(first);

    await actions.getByTestId('pause').click();
    await expect.poll(() => actions.getAttribute('data-state'), { timeout: 120_000 }).toBe('paused');
    // Paused at a step boundary: the chart has every step the trainer logged, and no more come.
    const pausedAt = (await page
      .locator('[data-testid="training-run-row"][data-state="paused"]')
      .getByTestId('run-step')
      .textContent())!;
    await expect.poll(async () => `${await stepOf()}/100000`, { timeout: 20_000 }).toBe(pausedAt);
    await actions.getByTestId('resume').click();
    await expect.poll(() => actions.getAttribute('data-state'), { timeout: 60_000 }).toBe('running');
    await expect.poll(stepOf, { timeout: 120_000 }).toBeGreaterThan(Number(pausedAt.split('/')[0]));
    // Stop writes a checkpoint first; the run can be evaluated from it.
    await actions.getByTestId('stop').click();
    await expect.poll(() => actions.getAttribute('data-state'), { timeout: 120_000 }).toBe('stopped');
    await shot('stopped-run');
    await expect.poll(() => page.getByTestId('checkpoint-row').count(), { timeout: 20_000 }).toBeGreaterThan(0);
  }, 300_000);
});
