/**
 * `t1lab ablate` end to end as CI can afford it: a grid of 2 tiny cells (reward = dense, binary) × 1 seed,
 * each a real 1-step PPO run from the same 2-layer nano checkpoint in real bubblewrap sandboxes, each final
 * checkpoint evaluated on a 2-task suite; report.md, report.html and the JSON summary come out, the HTML
 * opens in Chromium, and a rerun on the same folder resumes (trains nothing again).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AblateSummary } from '../../electron/lab/experiments/ablate';
import { launchChromium } from '../helpers/browser';
import { parseJsonOutput, runT1lab } from '../helpers/cli';
import { writeTinyPpoSetup } from '../helpers/ppo-setup';
import { QUICK_SUITE, writeSuite } from '../helpers/tasks';
import { makeTempDir } from '../helpers/tmp';

describe('t1lab ablate (2 cells x 1 seed)', () => {
  const tmp = makeTempDir('t1lab-ablate-');
  const env = { T1LAB_HOME: join(tmp.path, 'home') };
  const out = join(tmp.path, 'ablation');
  let config: string;
  let evalSuite: string;

  beforeAll(async () => {
    const train = writeSuite(join(tmp.path, 'train'));
    evalSuite = writeSuite(join(tmp.path, 'eval'), QUICK_SUITE.slice(0, 2));
    ({ config } = await writeTinyPpoSetup(tmp.path, {
      env,
      suite: train,
      seed: 0,
      steps: 1,
      ppo: {
        tasks_per_step: 1,
        group_size: 2,
        concurrency: 2,
        max_turns: 1,
        max_tokens: 8,
        epochs: 1,
        minibatches: 1,
        async: false,
      },
    }));
  }, 120_000);
  afterAll(() => tmp.remove());

  const ablate = () =>
    runT1lab(
      [
        'ablate',
        '--config',
        config,
        '--grid',
        'reward=dense,binary',
        '--seeds',
        '1',
        '--out',
        out,
        '--eval',
        evalSuite,
        '--eval-max-turns',
        '1',
        '--eval-max-tokens',
        '8',
        '--eval-temperature',
        '0',
        '--eval-agent-timeout',
        '30',
        '--eval-concurrency',
        '1',
        '--json',
      ],
      { env, timeoutMs: 400_000 },
    );

  it('refuses a bad evaluation flag before any cell trains', async () => {
    const bad = await runT1lab(
      [
        'ablate',
        '--config',
        config,
        '--grid',
        'reward=dense,binary',
        '--seeds',
        '1',
        '--out',
        join(tmp.path, 'bad'),
        '--eval-temperature',
        'hot',
      ],
      { env },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--eval-temperature must be a number from 0 to 2, got 'hot'");
    expect(existsSync(join(tmp.path, 'bad'))).toBe(false);
  });

  it('trains and evaluates both cells, writes the reports, and resumes without training again', async () => {
    const first = await ablate();
    expect(first.code, first.stderr).toBe(0);
    const summary = parseJsonOutput<AblateSummary>(first);
    expect(summary.cells.map((c) => c.name).sort()).toEqual(['reward-binary', 'reward-dense']);
    for (const cell of summary.cells) {
      expect(cell.seeds).toHaveLength(1);
      const [seed] = cell.seeds;
      const manifest = JSON.parse(readFileSync(join(seed!.trainDir, 'run.json'), 'utf8')) as {
        data: { switches: { reward: string } };
      };
      expect(manifest.data.switches.reward).toBe(cell.cell.reward);
      expect(existsSync(join(seed!.checkpoint, 'manifest.json'))).toBe(true);
      const evals = Object.values(seed!.evals);
      expect(evals).toHaveLength(1);
      expect(existsSync(evals[0]!)).toBe(true);
      // The evaluation flags reach each eval: greedy, one sandbox at a time, 30 s for the agent.
      const run = (
        JSON.parse(readFileSync(join(evals[0]!, 'run.json'), 'utf8')) as {
          config: {
            policySettings?: { temperature?: number };
            concurrency?: number;
            harness?: { agentTimeoutSec?: number };
          };
        }
      ).config;
      expect(run.policySettings?.temperature).toBe(0);
      expect(run.concurrency).toBe(1);
      expect(run.harness?.agentTimeoutSec).toBe(30);
    }
    const md = readFileSync(summary.report.markdown, 'utf8');
    expect(md).toContain('reward-dense');
    expect(md).toContain('reward-binary');

    // The HTML report is a page of its own: it opens in Chromium with its charts and no script error.
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(pathToFileURL(summary.report.html).href);
      expect(await page.locator('svg[role="img"]').count()).toBeGreaterThanOrEqual(1);
      expect(await page.locator('table').first().innerText()).toContain('reward-binary');
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }

    // A rerun finds every cell done: the training runs are not touched again.
    const metrics = summary.cells.map((c) => join(c.seeds[0]!.trainDir, 'metrics.jsonl'));
    const mtimes = metrics.map((m) => statSync(m).mtimeMs);
    const again = await ablate();
    expect(again.code, again.stderr).toBe(0);
    expect(parseJsonOutput<AblateSummary>(again).cells).toHaveLength(2);
    expect(metrics.map((m) => statSync(m).mtimeMs)).toEqual(mtimes);
  }, 900_000);
});
