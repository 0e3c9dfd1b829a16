/** The reproduction's report: the table in the paper's shape, paired tests, and both PPO runs' curves as SVG. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPRO_QUICK } from '../../../electron/lab/experiments/repro';
import type { ReproTable } from '../../../electron/lab/experiments/repro-table';
import { smoothed, writeReproReport } from '../../../electron/lab/experiments/repro-report';
import { evalBudget, ppoBudget } from '../../../electron/lab/experiments/repro-feasibility';
import { formatReproTable } from '../../../electron/cli/commands/experiments';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-repro-report-');
afterAll(() => tmp.remove());

describe('repro report', () => {
  it('reads the budgets of eval arguments and of a PPO config', () => {
    expect(
      evalBudget(['--max-turns', '6', '--max-tokens', '96', '--agent-timeout', '60', '--concurrency', '2']),
    ).toEqual({ maxTurns: 6, maxTokens: 96, agentTimeoutSec: 60 });
    expect(evalBudget(['--concurrency', '2'])).toEqual({ maxTurns: 300 });
    const config = join(tmp.path, 'ppo.toml');
    writeFileSync(config, '[ppo]\nmax_turns = 6\nmax_tokens = 96\n');
    expect(ppoBudget(config)).toEqual({ maxTurns: 6, maxTokens: 96 });
    writeFileSync(config, '[ppo]\ngroup_size = 4\n');
    expect(ppoBudget(config)).toEqual({ maxTurns: 8 });
    expect(ppoBudget(join(tmp.path, 'none.toml'))).toBeNull();
  });

  it('smooths with a trailing window and keeps its min..max as the band', () => {
    const s = smoothed(
      [1, 3, 5, 7].map((y, i) => ({ x: i + 1, y })),
      2,
    );
    expect(s.map((p) => p.y)).toEqual([1, 2, 4, 6]);
    expect(s.map((p) => [p.lo, p.hi])).toEqual([
      [1, 1],
      [1, 3],
      [3, 5],
      [5, 7],
    ]);
  });

  it('writes report.md with the table, the tests on resolved and reward, and two SVG charts', () => {
    for (const [run, reward] of [
      ['rl-dense', 0.5],
      ['rl-binary', 0],
    ] as const) {
      mkdirSync(join(tmp.path, run), { recursive: true });
      const rows = Array.from({ length: 12 }, (_, i) =>
        JSON.stringify({
          step: i + 1,
          reward_dense: reward + i / 10,
          reward_binary: 0,
          train_infer_gap_r3: 2e-7,
          train_infer_gap_free: 3e-3,
        }),
      );
      writeFileSync(join(tmp.path, run, 'metrics.jsonl'), `${rows.join('\n')}\n`);
    }
    const table: ReproTable = {
      quick: false,
      settings: REPRO_QUICK,
      rows: ['base', 'sft', 'rl-dense', 'rl-binary'].map((model, i) => ({
        model: model as ReproTable['rows'][number]['model'],
        suite: 'nano-bench',
        tasks: 30,
        resolvedRate: i / 30,
        ci95: [0, 0.2],
        meanReward: i * 0.25,
        ...(model === 'sft' ? { validCallShare: 0.95 } : {}),
      })),
      tests: [
        {
          comparison: 'rl-dense vs sft',
          suite: 'nano-bench',
          diff: 1 / 30,
          ci95: [0, 0.1],
          p: 1,
          rewardDiff: 0.25,
          rewardCi95: [0.05, 0.5],
        },
        {
          comparison: 'sft vs base',
          suite: 'nano-bench',
          diff: 0,
          ci95: [0, 0],
          p: 1,
          rewardDiff: 0,
          rewardCi95: [0, 0],
          validCallDiff: 0.9,
          validCallCi95: [0.8, 1],
        },
      ],
      feasibility: [
        {
          suite: 'nano-bench',
          budget: 'eval',
          tasks: 30,
          feasible: 3,
          share: 0.1,
          maxTurns: 6,
          maxTokens: 96,
          cutCalls: { count: 50, calls: 200, share: 0.25 },
        },
        {
          suite: 'train',
          budget: 'ppo',
          tasks: 200,
          feasible: 31,
          share: 0.155,
          maxTurns: 6,
          maxTokens: 96,
          cutCalls: { count: 483, calls: 1943, share: 483 / 1943 },
        },
      ],
      sampled: {
        rows: [
          {
            model: 'sft',
            suite: 'id-nano-wide',
            attempts: 8,
            temperature: 0.7,
            episodes: 1040,
            avgAtK: { k: 8, minAttempts: 8, value: 0.25, ci95: [0.2, 0.3], dense: { value: 2.5, ci95: [2.25, 2.75] } },
          },
        ],
        tests: [
          {
            comparison: 'rl-dense vs sft',
            suite: 'id-nano-wide',
            attempts: 8,
            temperature: 0.7,
            diff: 0.05,
            ci95: [0.01, 0.09],
            test: { name: 'sign-flip-exact', p: 0.012 },
            rewardDiff: 0.1,
            rewardCi95: [0, 0.2],
          },
        ],
      },
      gap: { r3Tito: 2e-7, free: 3e-3, lossDrift: 0 },
      checkpoints: {},
      out: tmp.path,
      durationMs: 1,
      stages: [
        { stage: 'sft', wallSeconds: 2588.2, runs: 1 },
        { stage: 'rl-dense', wallSeconds: 5000, runs: 2 },
      ],
      wallSeconds: 7588.2,
    };
    const report = writeReproReport(table);
    const md = readFileSync(report.markdown, 'utf8');
    expect(md).toContain('| rl-dense | 6.7% [0.0%, 20.0%]; reward 0.50 |');
    expect(md).toContain('| rl-dense vs sft | nano-bench | 3.3 pp [0.0, 10.0] | 1.000 | 0.250 [0.050, 0.500] | — |');
    // The share of turns with a valid tool call, and its paired difference, where measured.
    expect(md).toContain('| sft | 3.3% [0.0%, 20.0%]; reward 0.25; valid calls 95.0% |');
    expect(md).toContain(
      '| sft vs base | nano-bench | 0.0 pp [0.0, 0.0] | 1.000 | 0.000 [0.000, 0.000] | 90.0 pp [80.0, 100.0] |',
    );
    expect(md).toContain('R3 + TITO 2.00e-7, free routing 0.003');
    // avg@K at PPO's temperature, and its test paired by task.
    expect(md).toContain('| sft | id-nano-wide | 8 at 0.7 | 25.0% [20.0, 30.0] |  | 2.50 [2.25, 2.75] |');
    expect(md).toContain(
      '| rl-dense vs sft | id-nano-wide | 8 at 0.7 | 5.0 pp [1.0, 9.0] | 0.012 (sign-flip-exact) | 0.100 [0.000, 0.200] |',
    );
    // What the oracle itself can finish at each budget.
    expect(md).toContain('| nano-bench | eval | 6 x 96 | 3/30 (10.0%) | 50/200 (25.0%) |');
    expect(md).toContain('| train | ppo | 6 x 96 | 31/200 (15.5%) | 483/1943 (24.9%) |');
    // Each stage's wall time over its invocations, and the pipeline's total across resumes.
    expect(md).toContain('| rl-dense | 1 h 23 min | 2 |');
    expect(md).toContain('| total | 2 h 06 min |  |');
    expect(report.charts).toHaveLength(2);
    const reward = readFileSync(report.charts[0]!, 'utf8');
    expect(reward.match(/<polyline/g)).toHaveLength(4);
    expect(reward).toContain('rl-binary: dense reward');
    expect(readFileSync(report.charts[1]!, 'utf8').match(/<polyline/g)).toHaveLength(2);
    // The CLI prints the same cells as aligned text.
    const text = formatReproTable(table);
    expect(text).toMatch(/rl-dense\s+6\.7% \[0\.0%, 20\.0%\]; reward 0\.50/);
    expect(text).toMatch(/train\s+ppo\s+6 x 96\s+31\/200 \(15\.5%\)\s+483\/1943 \(24\.9%\)/);
    expect(text).toMatch(/sft\s+43 min 08 s\s+1/);
    expect(text).toMatch(/rl-dense vs sft\s+nano-bench\s+3\.3 pp \[0\.0, 10\.0\]\s+1\.000\s+0\.250 \[0\.050, 0\.500\]/);
  });
});
