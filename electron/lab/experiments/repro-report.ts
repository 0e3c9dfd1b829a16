/**
 * The reproduction's report beside table.json: `report.md` (the table in the paper's shape, the paired
 * tests on resolved and on mean dense reward, the gap) and the learning curves of both PPO runs as
 * standalone SVG files (`curves-reward.svg`, `curves-gap.svg`) that the markdown embeds. Curves are a
 * moving mean over 5 steps with the per-step values as the band: 8 episodes a step are noisy.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { metricSeries, readMetrics } from './cell-results';
import type { ReproTable } from './repro-table';
import { svgLineChart, type ChartPoint, type ChartSeries } from './svg-chart';
import { formatRate } from '../../domain/rates';

const fix = (x: number | null, digits = 3) =>
  x === null ? '—' : Math.abs(x) < 1e-3 && x !== 0 ? x.toExponential(2) : x.toFixed(digits);

/** A moving mean over `window` steps; lo/hi are the window's min and max. */
export function smoothed(points: readonly { x: number; y: number }[], window = 5): ChartPoint[] {
  return points.map((p, i) => {
    const w = points.slice(Math.max(0, i - window + 1), i + 1).map((q) => q.y);
    return { x: p.x, y: w.reduce((a, b) => a + b, 0) / w.length, lo: Math.min(...w), hi: Math.max(...w) };
  });
}

export const REPRO_MODELS = ['base', 'sft', 'rl-dense', 'rl-binary'] as const;

/** Seconds as `1 h 02 min`, `12 min 05 s` or `8.4 s`. */
export function formatWallTime(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  // Whole seconds first, so that 119.6 s reads `2 min 00 s`, not `1 min 60 s`.
  const whole = Math.round(seconds);
  const m = Math.floor(whole / 60);
  if (m < 60) return `${m} min ${String(whole % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/**
 * The reproduction's tables as rows of cell text, for the CLI (aligned text) and report.md (markdown)
 * alike: resolved rate [95% CI] and mean dense reward per model and suite, the paired tests, the
 * oracle's feasibility and each stage's wall time.
 */
export function reproTableCells(t: ReproTable): {
  results: string[][];
  tests: string[][];
  sampled: string[][];
  feasibility: string[][];
  stages: string[][];
} {
  const suites = [...new Set(t.rows.map((r) => r.suite))];
  const cell = (model: string, suite: string) => {
    const r = t.rows.find((x) => x.model === model && x.suite === suite);
    const calls =
      r?.validCallShare === undefined || r.validCallShare === null
        ? ''
        : `; valid calls ${formatRate(r.validCallShare)}`;
    return r
      ? `${formatRate(r.resolvedRate)} [${formatRate(r.ci95[0])}, ${formatRate(r.ci95[1])}]; reward ${r.meanReward.toFixed(2)}${calls}`
      : '—';
  };
  const interval = (lo: number, hi: number, scale: number, digits: number) =>
    `[${(lo * scale).toFixed(digits)}, ${(hi * scale).toFixed(digits)}]`;
  return {
    results: [['model', ...suites], ...REPRO_MODELS.map((m) => [m, ...suites.map((s) => cell(m, s))])],
    sampled: t.sampled
      ? [
          ['model / comparison', 'suite', 'attempts at T', 'avg@K (B − A) [95% CI]', 'p', 'dense reward [95% CI]'],
          ...t.sampled.rows.map((r) => [
            r.model,
            r.suite,
            `${r.attempts} at ${r.temperature}`,
            `${formatRate(r.avgAtK.value)} ${interval(r.avgAtK.ci95[0], r.avgAtK.ci95[1], 100, 1)}`,
            '',
            `${r.avgAtK.dense.value.toFixed(2)} ${interval(r.avgAtK.dense.ci95[0], r.avgAtK.dense.ci95[1], 1, 2)}`,
          ]),
          ...t.sampled.tests.map((x) => [
            x.comparison,
            x.suite,
            `${x.attempts} at ${x.temperature}`,
            `${(x.diff * 100).toFixed(1)} pp ${interval(x.ci95[0], x.ci95[1], 100, 1)}`,
            `${x.test.p.toFixed(3)} (${x.test.name})`,
            `${x.rewardDiff.toFixed(3)} ${interval(x.rewardCi95[0], x.rewardCi95[1], 1, 3)}`,
          ]),
        ]
      : [],
    feasibility: [
      ['suite', 'budget', 'turns x tokens', 'oracle-feasible', 'oracle calls cut'],
      ...(t.feasibility ?? []).map((f) => [
        f.suite,
        f.budget,
        `${f.maxTurns} x ${f.maxTokens}`,
        `${f.feasible}/${f.tasks} (${formatRate(f.share)})`,
        `${f.cutCalls.count}/${f.cutCalls.calls} (${formatRate(f.cutCalls.share)})`,
      ]),
    ],
    stages: t.stages?.length
      ? [
          ['stage', 'wall time', 'runs'],
          ...t.stages.map((x) => [x.stage, formatWallTime(x.wallSeconds), String(x.runs)]),
          ['total', formatWallTime(t.wallSeconds ?? 0), ''],
        ]
      : [],
    tests: [
      [
        'comparison',
        'suite',
        'resolved diff [95% CI]',
        'McNemar p',
        'dense reward diff [95% CI]',
        'valid calls diff [95% CI]',
      ],
      ...t.tests.map((x) => [
        x.comparison,
        x.suite,
        `${(x.diff * 100).toFixed(1)} pp ${interval(x.ci95[0], x.ci95[1], 100, 1)}`,
        x.p.toFixed(3),
        x.rewardDiff === undefined
          ? '—'
          : `${x.rewardDiff.toFixed(3)} ${interval(x.rewardCi95![0], x.rewardCi95![1], 1, 3)}`,
        x.validCallDiff === undefined
          ? '—'
          : `${(x.validCallDiff * 100).toFixed(1)} pp ${interval(x.validCallCi95![0], x.validCallCi95![1], 100, 1)}`,
      ]),
    ],
  };
}

/** Rows of cells as a markdown table (the first row is the header). */
function markdownTable(rows: readonly string[][]): string[] {
  const [header, ...body] = rows;
  return [
    `| ${header!.join(' | ')} |`,
    `|${header!.map(() => '---').join('|')}|`,
    ...body.map((r) => `| ${r.join(' | ')} |`),
  ];
}

export function writeReproReport(t: ReproTable): { markdown: string; charts: string[] } {
  const runs = ['rl-dense', 'rl-binary'] as const;
  const metrics = Object.fromEntries(runs.map((r) => [r, readMetrics(join(t.out, r))]));
  const reward: ChartSeries[] = runs.flatMap((r) => [
    { label: `${r}: dense reward`, points: smoothed(metricSeries(metrics[r]!, 'reward_dense')) },
    { label: `${r}: binary reward`, points: smoothed(metricSeries(metrics[r]!, 'reward_binary')) },
  ]);
  const gap: ChartSeries[] = [
    { label: 'R3 + TITO', points: metricSeries(metrics['rl-dense']!, 'train_infer_gap_r3') },
    { label: 'free routing', points: metricSeries(metrics['rl-dense']!, 'train_infer_gap_free') },
  ];
  const charts = [
    [
      'curves-reward.svg',
      svgLineChart('training reward by PPO step (5-step moving mean, band: min..max)', reward, {
        x: 'PPO step',
        y: 'reward per episode',
      }),
    ],
    [
      'curves-gap.svg',
      svgLineChart('train-inference gap of rl-dense: mean |logp_trainer - logp_sampler|', gap, {
        x: 'PPO step',
        y: 'nats per loss token',
      }),
    ],
  ] as const;
  for (const [name, svg] of charts) writeFileSync(join(t.out, name), `${svg}\n`);

  const cells = reproTableCells(t);
  const lines = [
    `# Nano reproduction: base → SFT → RL`,
    '',
    t.quick ? '**QUICK settings: a smoke run of the pipeline, not the recipe.**\n' : '',
    `Settings: \`${JSON.stringify(t.settings)}\``,
    '',
    ...markdownTable(cells.results),
    '',
    'Resolved rate with its 95% interval (Wilson over tasks) and the mean dense reward (passing assertions per episode).',
    '',
    ...markdownTable(cells.tests),
    '',
    ...(cells.sampled.length
      ? [
          "avg@K: each trained model run K times per task at PPO's sampling temperature; the mean of per-task success shares with a task-bootstrap interval, and the differences paired by task (sign-flip permutation test).",
          '',
          ...markdownTable(cells.sampled),
          '',
        ]
      : []),
    ...(t.feasibility?.length
      ? [
          "What the oracle itself can finish at the budgets of the evaluations (eval) and of PPO (the train pack), in the models' tokenizer (`t1lab tasks feasible`): no policy can resolve more than this share.",
          '',
          ...markdownTable(cells.feasibility),
          '',
        ]
      : []),
    ...(cells.stages.length
      ? [
          'Wall time of each stage over every invocation (runs > 1: the stage was resumed):',
          '',
          ...markdownTable(cells.stages),
          '',
        ]
      : []),
    `Train-inference gap (rl-dense, mean of the last 10 steps): R3 + TITO ${fix(t.gap.r3Tito)}, free routing ${fix(t.gap.free)}; loss drift ${fix(t.gap.lossDrift)}.`,
    '',
    '![training reward](curves-reward.svg)',
    '',
    '![train-inference gap](curves-gap.svg)',
    '',
  ];
  const markdown = join(t.out, 'report.md');
  writeFileSync(markdown, lines.filter((l, i) => l !== '' || lines[i - 1] !== '').join('\n'));
  return { markdown, charts: charts.map(([name]) => join(t.out, name)) };
}
