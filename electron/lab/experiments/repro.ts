/**
 * `t1lab repro`: the paper's base → SFT → RL table at nano scale, end to end, as one resumable pipeline of
 * `t1lab` stages (each its own process, each resumable, each leaving `<stage>.done.json`):
 *   model init → train lm (base) → tasks synth (train pack) → tasks sft-data → train sft →
 *   train ppo (dense reward, TITO exact, R3 on) and train ppo (binary reward) → eval of every checkpoint
 *   on every suite → the table (resolved with intervals, paired p-values, train-inference gap, drift).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  evalStage,
  ppoSection,
  reproPipeline,
  runStage,
  synthStage,
  trainStage,
  type Json,
  type ReproPipeline,
} from './repro-pipeline';
import { applyReproSettings, type ReproSettings, type ReproSettingsFile } from './repro-settings';
import type { ReproRow, ReproTable } from './repro-table';
import { writeReproReport } from './repro-report';
import { evalBudget, ppoBudget, suiteFeasibility, type ReproFeasibility } from './repro-feasibility';
import { readMetrics, tailMean } from './cell-results';
import { readRun } from '../runs/library';
import { computeStats } from '../runs/stats';
import { compareRuns } from '../stats/compare';
import { compareValidCalls, validCallsByTask, validCallShare, type TaskCalls } from './valid-calls';
import { addStageTime, readStageTimes, totalWallSeconds } from './stage-times';
import { outcomeLines } from './outcome-lines';
import { writeOutcomes } from '../stats/outcomes-file';
import { OUTCOMES_FILE } from '../../domain/outcomes';
import {
  SAMPLED_MODELS,
  SAMPLED_PAIRS,
  sampledEvalArgs,
  sampledRow,
  sampledTest,
  type SampledRow,
  type SampledTest,
} from './repro-sampled';

/**
 * The nano curriculum: the easy core families, two medium ones with one short program each, and four
 * whose program reads fixed file names (number-theory-batch, mail-merge, passwd-audit,
 * numeric-integration). `tasks/suites/id-nano.jsonl` holds their held-out seeds (5 per family).
 */
export const NANO_FAMILIES = [
  'write-file',
  'count-matches',
  'rename-files',
  'fix-permissions',
  'replace-text',
  'extract-archive',
  'jsonl-filter',
  'csv-group-sum',
  'measurement-stats',
  'number-theory-batch',
  'mail-merge',
  'passwd-audit',
  'numeric-integration',
];

/**
 * The episode budget every stage shares: the evaluations', PPO's and the one the SFT prompts state. With
 * it the oracle can finish all 65 id-nano tasks (its longest call is 528 tokens; 512 tokens leave out
 * passwd-audit, 256 three families, and typing the set -…/cd /app preamble as turns leaves out mail-merge).
 * Evaluations decode greedily (temperature 0, recorded in each run's manifest).
 */
const NANO_BUDGET = { turns: 6, tokens: 576, agentSec: 60 };
// 8 episodes at a time: 130 episodes of id-nano at T 0.7 in 47-53 s against 59-69 s at 2 (docs/examples/ppo-step).
const NANO_EVAL_ARGS = [
  '--max-turns',
  String(NANO_BUDGET.turns),
  '--max-tokens',
  String(NANO_BUDGET.tokens),
  '--agent-timeout',
  String(NANO_BUDGET.agentSec),
  '--temperature',
  '0',
  '--concurrency',
  '8',
];
/**
 * PPO as measured on the SFT warm start (docs/guide/recipe-learning.md): 4 tasks x 8 episodes per step from
 * the probe's pool (groups of 8 on families where attempts disagree are rarely flat), group advantages (no
 * critic to warm up in a short run), sampling at 0.7 (at 1.0 the warm start earns a fifth of the reward and
 * as many groups are flat), lr 2e-5 constant: at 2e-4 (flat batches) and at 1e-4 (on the pool) Adam's
 * noisy steps took the warm start from 12 of 65 id-nano tasks to 0 and 5 in 8 steps.
 */
const NANO_PPO = {
  'ppo.tasks_per_step': 4,
  'ppo.group_size': 8,
  // 8 episodes at a time, decoded in one batch (a step's rollouts 16 s against 22 s at 2), and no overlap of
  // the next step's rollouts with this step's update: on 2 cores both want the same cores (a step 41 s
  // in turn against 44 s overlapped), and the samples stay on-policy. docs/reference/benchmarks.md.
  'ppo.concurrency': 8,
  'ppo.async': false,
  'ppo.max_turns': NANO_BUDGET.turns,
  'ppo.max_tokens': NANO_BUDGET.tokens,
  'ppo.agent_timeout_sec': NANO_BUDGET.agentSec,
  'ppo.episode_deadline_sec': 180,
  'ppo.temperature': 0.7,
  'ppo.advantage': 'group',
  'train.micro_batch_size': 4,
  'optimizer.lr': 0.00002,
  'schedule.kind': 'constant',
  'schedule.warmup_steps': 2,
  'checkpoint.every': 4,
};

export const REPRO_FULL: ReproSettings = {
  preset: 'nano',
  // 1,500 whole oracle episodes (about 2 epochs in 320 steps of 8): names copied from the instruction fall
  // to 0.40 nats per token on held-out first turns, and the warm start resolves 18% of id-nano greedily.
  trainTasks: 1500,
  families: NANO_FAMILIES,
  firstTurnTasks: 0,
  sftDrillSamples: 0,
  lmSteps: 400,
  sftSteps: 320,
  // Two PPO runs of 16 steps: the whole run, avg@8 included, took 1 h 33 min and 1 h 28 min for seeds 1 and 2
  // (docs/examples/repro-default, repro-seed2; 55 s a PPO step on the pool). 40 steps of the dense run
  // (seed 1) resolved what its first 16 did, avg@8 6.7% both (docs/examples/group-scale).
  ppoSteps: 16,
  probeTasksPerFamily: 6,
  probeAttempts: 4,
  overrides: {
    lm: { 'train.batch_size': 8, 'train.micro_batch_size': 8, 'train.eval_every': 0, 'checkpoint.every': 100 },
    // Micro-batches of 4 sorted by length pad less than 8: 1.5x the tokens per second on episodes of 300-1,800 tokens.
    sft: {
      'train.batch_size': 8,
      'train.micro_batch_size': 4,
      'optimizer.lr': 0.002,
      'schedule.warmup_steps': 15,
      'data.eval_fraction': 0.02,
      'train.eval_every': 40,
      'train.eval_batches': 2,
      'checkpoint.every': 20,
    },
    ppo: NANO_PPO,
  },
  evalTasks: 0,
  evalArgs: NANO_EVAL_ARGS,
  // avg@8 at PPO's temperature on the in-distribution suite: what PPO optimizes, paired by task, where a
  // greedy evaluation sees only tasks whose single outcome flips.
  sampledAttempts: 8,
  sampledSuites: [],
  seed: 1,
};

/**
 * `--quick`: the same pipeline with every stage cut so that it ends in about 15 minutes on 2 cores. Its SFT
 * time goes to first-turn samples (the prompt an evaluation starts from and the first command, about 400
 * tokens each) and only 4 whole episodes, which cost 2-4x the tokens of a first turn: from the same 20-step
 * LM, 200 SFT steps with 13 whole episodes wrote no valid tool call greedily (0 of 16 turns), 180 steps with 4
 * wrote one in 27 of 52. These settings as measured: docs/examples/repro-quick.
 */
export const REPRO_QUICK: ReproSettings = {
  preset: 'nano',
  trainTasks: 4,
  families: NANO_FAMILIES,
  firstTurnTasks: 240,
  sftDrillSamples: 0,
  lmSteps: 20,
  sftSteps: 170,
  ppoSteps: 2,
  probeTasksPerFamily: 1,
  probeAttempts: 2,
  overrides: {
    lm: {
      'train.batch_size': 8,
      'train.micro_batch_size': 8,
      'train.eval_every': 0,
      'schedule.warmup_steps': 2,
      'checkpoint.every': 10,
    },
    sft: {
      'train.batch_size': 8,
      'train.micro_batch_size': 4,
      'train.eval_every': 0,
      'schedule.warmup_steps': 5,
      'checkpoint.every': 60,
    },
    ppo: {
      'ppo.tasks_per_step': 2,
      'ppo.group_size': 2,
      'ppo.concurrency': 2,
      'ppo.max_turns': 4,
      'ppo.max_tokens': 64,
      'schedule.warmup_steps': 0,
      'checkpoint.every': 1,
    },
  },
  // The first 13 tasks of each suite: one per family of id-nano (the suite cycles through its 13 families); an
  // evaluation at 4 x 64 takes seconds.
  // The agent timeout bounds an episode whose command waits for input (`python3 -` in a pty starts the REPL),
  // which would otherwise wait out the task's own 600 s.
  evalTasks: 13,
  evalArgs: [
    '--max-turns',
    '4',
    '--max-tokens',
    '64',
    '--agent-timeout',
    '30',
    '--temperature',
    '0',
    '--concurrency',
    '2',
  ],
  sampledAttempts: 2,
  sampledSuites: [],
  seed: 1,
};

export interface ReproOptions {
  out: string;
  quick: boolean;
  suites: { name: string; path: string }[];
  settings?: ReproSettingsFile;
  log?: (line: string) => void;
}

/** `[flag, value]` when the argument list has the flag, else nothing. */
function flagOf(args: readonly string[], flag: string): string[] {
  const i = args.indexOf(flag);
  return i >= 0 && i + 1 < args.length ? [flag, args[i + 1]!] : [];
}

/** A pack suite cut to its first `limit` tasks (every model is evaluated on the same cut), or the suite as is. */
function evalSuite(out: string, suite: { name: string; path: string }, limit: number): string {
  const path = resolve(suite.path);
  if (limit <= 0 || !path.endsWith('.jsonl')) return path;
  const cut = join(out, 'suites', `${suite.name}.jsonl`);
  if (!existsSync(cut)) {
    mkdirSync(join(out, 'suites'), { recursive: true });
    const lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.trim());
    writeFileSync(cut, `${lines.slice(0, limit).join('\n')}\n`);
  }
  return cut;
}

type Suite = { name: string; path: string };
type Checkpoints = Record<ReproRow['model'], string>;
/** Run folders by model, then by suite name. */
type EvalDirs = Record<string, Record<string, string>>;

export async function runRepro(options: ReproOptions): Promise<ReproTable> {
  const started = Date.now();
  const p = reproPipeline({
    out: resolve(options.out),
    quick: options.quick,
    s: applyReproSettings(options.quick ? REPRO_QUICK : REPRO_FULL, options.settings),
    log: options.log ?? (() => {}),
  });
  mkdirSync(p.out, { recursive: true });
  // Checked before hours of training: an unknown suite name would otherwise fail only at the evaluations.
  const sampledSuites = p.s.sampledAttempts > 0 ? sampledSuitesOf(p.s, options.suites) : [];
  recordSettings(p, options.suites);

  const { pack, checkpoints } = await trainModels(p);
  const suitePaths = new Map(options.suites.map((suite) => [suite.name, evalSuite(p.out, suite, p.s.evalTasks)]));
  const evalDirs = await evaluateGreedily(p, checkpoints, options.suites, suitePaths);
  const sampledRuns = await evaluateSampled(p, checkpoints, sampledSuites, suitePaths);
  writeModelOutcomes(p, evalDirs, sampledRuns.dirs);
  const feasibility = await oracleFeasibility(p, checkpoints.sft, pack, options.suites, suitePaths);

  const { rows, tests } = greedyResults(options.suites, evalDirs, feasibility);
  const sampled = sampledResults(sampledRuns.dirs, p.s.sampledAttempts, sampledRuns.temperature);
  const table = reproTable(p, { rows, tests, sampled, feasibility, checkpoints, durationMs: Date.now() - started });
  table.report = writeReproReport(table);
  writeFileSync(join(p.out, 'table.json'), `${JSON.stringify(table, null, 2)}\n`);
  return table;
}

/** `repro.json`: the settings this reproduction runs with (and, for `--quick`, a word that it is a smoke run). */
function recordSettings(p: ReproPipeline, suites: Suite[]): void {
  if (p.quick)
    p.log(
      'quick mode: every stage is cut short (see the settings in repro.json); the numbers show the pipeline works, not what the recipe can reach',
    );
  writeFileSync(join(p.out, 'repro.json'), `${JSON.stringify({ quick: p.quick, settings: p.s, suites }, null, 2)}\n`);
}

/**
 * Every training stage in order: a fresh model, its LM pretraining (base), the train pack, SFT on oracle
 * episodes of it, then two PPO runs from the SFT checkpoint (dense and binary reward) on PPO's pool.
 */
export async function trainModels(p: ReproPipeline): Promise<{ pack: string; checkpoints: Checkpoints }> {
  const base = await pretrainBase(p, await initModel(p));
  const pack = join(p.out, 'train.jsonl');
  await synthStage(p, 'synth', pack, p.s.trainTasks, p.s.seed);
  const sft = await trainSft(p, base, await sftData(p, pack, base));
  const ppoPack = p.s.probeTasksPerFamily > 0 ? await ppoPool(p, sft, pack) : pack;
  const { dense, binary } = await trainPpoPair(p, sft, ppoPack);
  return { pack, checkpoints: { base, sft, 'rl-dense': dense, 'rl-binary': binary } };
}

/** `t1lab model init`: the preset's architecture with fresh weights; returns its folder. */
async function initModel(p: ReproPipeline): Promise<string> {
  const dir = join(p.out, 'init');
  const init = await runStage(p, 'init', [
    'model',
    'init',
    '--preset',
    p.s.preset,
    '--out',
    dir,
    '--seed',
    String(p.s.seed),
    '--json',
  ]);
  return typeof init.path === 'string' ? init.path : dir;
}

/** The base model: LM pretraining of the fresh model on the built-in corpus. */
function pretrainBase(p: ReproPipeline, initDir: string): Promise<string> {
  return trainStage(
    p,
    'lm',
    'lm',
    ['--model', initDir, '--steps', String(p.s.lmSteps), '--seed', String(p.s.seed)],
    {},
  );
}

/**
 * The SFT data files: oracle episodes of the train pack, then (when the settings ask) first turns of more
 * train tasks and copy drills. The prompts state the evaluation's budget (turns, agent time), so training
 * and evaluation read the same words.
 */
async function sftData(p: ReproPipeline, pack: string, base: string): Promise<string[]> {
  const budget = [...flagOf(p.s.evalArgs, '--max-turns'), ...flagOf(p.s.evalArgs, '--agent-timeout')];
  const episodes = join(p.out, 'sft.jsonl');
  await runStage(p, 'sft-data', sftDataArgs(pack, base, episodes, budget));
  const files = [episodes];
  if (p.s.firstTurnTasks > 0) files.push(await sftFirstTurns(p, base, budget));
  if (p.s.sftDrillSamples > 0) files.push(await sftDrills(p, base, episodes));
  return files;
}

function sftDataArgs(pack: string, base: string, out: string, budget: string[], extra: string[] = []): string[] {
  return ['tasks', 'sft-data', '--suite', pack, '--checkpoint', base, '--out', out, ...extra, ...budget, '--json'];
}

/** First-turn samples (the prompt and the first command) of `firstTurnTasks` more train tasks. */
async function sftFirstTurns(p: ReproPipeline, base: string, budget: string[]): Promise<string> {
  const firstPack = join(p.out, 'train-first.jsonl');
  await synthStage(p, 'synth-first', firstPack, p.s.firstTurnTasks, p.s.seed + 1);
  const file = join(p.out, 'sft-first.jsonl');
  await runStage(p, 'sft-first', sftDataArgs(firstPack, base, file, budget, ['--first-turns']));
  return file;
}

/** Copy drills laid out like the oracle episodes' samples. */
async function sftDrills(p: ReproPipeline, base: string, like: string): Promise<string> {
  const file = join(p.out, 'sft-drills.jsonl');
  await runStage(p, 'sft-drills', [
    'tasks',
    'sft-drills',
    '--like',
    like,
    '--checkpoint',
    base,
    '--count',
    String(p.s.sftDrillSamples),
    '--out',
    file,
    '--json',
  ]);
  return file;
}

function trainSft(p: ReproPipeline, base: string, files: string[]): Promise<string> {
  const args = ['--model', base, '--steps', String(p.s.sftSteps), '--seed', String(p.s.seed)];
  return trainStage(p, 'sft', 'sft', args, { 'data.path': files });
}

/**
 * PPO's pool: a probe pack of other train tasks of the same families, run by the SFT checkpoint at PPO's
 * temperature and budget with several attempts; PPO draws from the families where attempts disagreed
 * (all of the train pack, with a warning, when none did).
 */
async function ppoPool(p: ReproPipeline, sft: string, pack: string): Promise<string> {
  const probePack = join(p.out, 'probe.jsonl');
  const perFamily = p.s.probeTasksPerFamily * Math.max(1, p.s.families.length);
  await synthStage(p, 'probe-synth', probePack, perFamily, p.s.seed + 2);
  // PPO's own settings, so the probe samples as PPO will.
  const budgetArgs = ppoBudgetArgs(await ppoSection(p));
  const probeDir = await evalStage(p, 'probe', (dir) => [
    '--suite',
    probePack,
    '--policy',
    `onnx:${sft}`,
    '--attempts',
    String(p.s.probeAttempts),
    ...budgetArgs,
    '--seed',
    String(p.s.seed),
    '--out',
    dir,
  ]);
  const poolPack = join(p.out, 'ppo-pool.jsonl');
  const pool = await runStage(p, 'pool', [
    'tasks',
    'pool',
    '--probe',
    probeDir,
    '--suite',
    pack,
    '--out',
    poolPack,
    '--all-if-none',
    '--json',
  ]);
  const kept = pool.kept as string[];
  p.log(
    `ppo pool: ${String(pool.tasks)} train tasks in ${kept.length ? kept.join(', ') : 'every family (no family had attempts that disagreed)'}`,
  );
  return poolPack;
}

/** `t1lab eval` flags for PPO's episode budget and sampling (those the `[ppo]` table sets). */
export function ppoBudgetArgs(ppo: Json): string[] {
  return [
    ['--max-turns', ppo.max_turns],
    ['--max-tokens', ppo.max_tokens],
    ['--agent-timeout', ppo.agent_timeout_sec],
    ['--temperature', ppo.temperature],
    ['--concurrency', ppo.concurrency],
  ].flatMap(([flag, v]) => (v === undefined || v === null ? [] : [String(flag), String(v)]));
}

/** The two PPO runs from the SFT checkpoint, alike but for the reward: dense (assertions passed) and binary. */
async function trainPpoPair(p: ReproPipeline, sft: string, pack: string): Promise<{ dense: string; binary: string }> {
  const args = (steps: number) => [
    '--model',
    sft,
    '--data',
    pack,
    '--steps',
    String(steps),
    '--seed',
    String(p.s.seed),
  ];
  const dense = await trainStage(p, 'rl-dense', 'ppo', args(p.s.ppoSteps), {
    'ppo.reward': 'dense',
    'ppo.tito': 'exact',
    'ppo.r3': 'on',
  });
  const binary = await trainStage(p, 'rl-binary', 'ppo', args(p.s.binarySteps ?? p.s.ppoSteps), {
    'ppo.reward': 'binary',
    'ppo.tito': 'exact',
    'ppo.r3': 'on',
  });
  return { dense, binary };
}

/** Every checkpoint on every suite, with the settings' evaluation arguments (greedy by default). */
async function evaluateGreedily(
  p: ReproPipeline,
  checkpoints: Checkpoints,
  suites: Suite[],
  suitePaths: Map<string, string>,
): Promise<EvalDirs> {
  const dirs: EvalDirs = {};
  for (const [model, checkpoint] of Object.entries(checkpoints))
    for (const suite of suites)
      (dirs[model] ??= {})[suite.name] = await evalStage(p, `eval-${model}-${suite.name}`, (dir) =>
        evalArgs(suitePaths.get(suite.name)!, checkpoint, dir, p.s.seed, p.s.evalArgs),
      );
  return dirs;
}

function evalArgs(suite: string, checkpoint: string, dir: string, seed: number, extra: string[]): string[] {
  return ['--suite', suite, '--policy', `onnx:${checkpoint}`, '--out', dir, '--seed', String(seed), ...extra];
}

/** avg@K at PPO's temperature: K attempts per task of each trained model, compared paired by task. */
async function evaluateSampled(
  p: ReproPipeline,
  checkpoints: Checkpoints,
  suites: Suite[],
  suitePaths: Map<string, string>,
): Promise<{ dirs: EvalDirs; temperature: number }> {
  const dirs: EvalDirs = {};
  if (p.s.sampledAttempts <= 0) return { dirs, temperature: 0 };
  const temperature = Number((await ppoSection(p)).temperature ?? 1);
  const args = sampledEvalArgs(p.s.evalArgs, temperature, p.s.sampledAttempts);
  for (const model of SAMPLED_MODELS)
    for (const suite of suites)
      (dirs[model] ??= {})[suite.name] = await evalStage(
        p,
        `eval-${model}-${suite.name}-avg${p.s.sampledAttempts}`,
        (dir) => evalArgs(suitePaths.get(suite.name)!, checkpoints[model], dir, p.s.seed, args),
      );
  return { dirs, temperature };
}

/**
 * Every model's per-task outcomes, committed beside the report: `t1lab compare outcomes.jsonl#sft
 * outcomes.jsonl#rl-dense`. The sampled runs' lines carry the suite as `<suite>@avg<K>`, so a compare of one
 * suite never mixes designs.
 */
function writeModelOutcomes(p: ReproPipeline, evalDirs: EvalDirs, sampledDirs: EvalDirs): void {
  const lines = (dirs: EvalDirs, suiteName: (suite: string) => string) =>
    Object.entries(dirs).flatMap(([model, bySuite]) =>
      Object.entries(bySuite).flatMap(([suite, runDir]) => outcomeLines({ runDir, model, suite: suiteName(suite) })),
    );
  writeOutcomes(join(p.out, OUTCOMES_FILE), [
    ...lines(evalDirs, (suite) => suite),
    ...lines(sampledDirs, (suite) => `${suite}@avg${p.s.sampledAttempts}`),
  ]);
}

/** What the oracle itself can finish at these budgets, in the models' tokenizer (tasks feasible); warns under half. */
async function oracleFeasibility(
  p: ReproPipeline,
  sft: string,
  pack: string,
  suites: Suite[],
  suitePaths: Map<string, string>,
): Promise<ReproFeasibility[]> {
  const started = performance.now();
  const feasibility: ReproFeasibility[] = [];
  for (const suite of suites)
    feasibility.push(
      await suiteFeasibility(sft, suite.name, suitePaths.get(suite.name)!, evalBudget(p.s.evalArgs), 'eval'),
    );
  const ppoLimits = ppoBudget(join(p.out, 'rl-dense.toml'));
  if (ppoLimits) feasibility.push(await suiteFeasibility(sft, 'train', pack, ppoLimits, 'ppo'));
  for (const f of feasibility)
    if (f.share < 0.5)
      p.log(
        `warning: the oracle itself can finish only ${f.feasible}/${f.tasks} tasks of ${f.suite} at ${f.maxTurns} turns x ${f.maxTokens} tokens (${f.budget} budget)`,
      );
  addStageTime(p.out, 'feasibility', (performance.now() - started) / 1000);
  return feasibility;
}

/** The models compared on each suite, paired by task: each step of the recipe, and dense against binary reward. */
const GREEDY_PAIRS = [
  ['base', 'sft'],
  ['sft', 'rl-dense'],
  ['sft', 'rl-binary'],
  ['rl-binary', 'rl-dense'],
] as const;

/** The table's rows (each model on each suite) and its paired tests, from the greedy evaluations. */
function greedyResults(
  suites: Suite[],
  evalDirs: EvalDirs,
  feasibility: ReproFeasibility[],
): Pick<ReproTable, 'rows' | 'tests'> {
  const rows: ReproRow[] = [];
  const tests: ReproTable['tests'] = [];
  const episodes = (model: string, suite: string) => readRun(evalDirs[model]![suite]!).episodes;
  const calls = new Map<string, Map<string, TaskCalls>>();
  const callsOf = (model: string, suite: string) => {
    const key = `${model}\u0000${suite}`;
    if (!calls.has(key)) calls.set(key, validCallsByTask(evalDirs[model]![suite]!, episodes(model, suite)));
    return calls.get(key)!;
  };
  const feasibleShare = (suite: string) => feasibility.find((f) => f.suite === suite && f.budget === 'eval')?.share;
  for (const suite of suites) {
    for (const model of Object.keys(evalDirs) as ReproRow['model'][]) {
      const st = computeStats(episodes(model, suite.name));
      const share = feasibleShare(suite.name);
      rows.push({
        model,
        suite: suite.name,
        tasks: st.tasks,
        resolvedRate: st.resolvedRate,
        ci95: st.ci95,
        meanReward: st.meanReward,
        validCallShare: validCallShare(callsOf(model, suite.name)),
        ...(share !== undefined ? { feasibleShare: share } : {}),
      });
    }
    for (const [a, b] of GREEDY_PAIRS) {
      const c = compareRuns(
        { run: a, episodes: episodes(a, suite.name) },
        { run: b, episodes: episodes(b, suite.name) },
      );
      const v = compareValidCalls(callsOf(a, suite.name), callsOf(b, suite.name));
      tests.push({
        comparison: `${b} vs ${a}`,
        suite: suite.name,
        diff: c.diff,
        ci95: c.diffCi95,
        p: c.test.p,
        rewardDiff: c.reward.diff,
        rewardCi95: c.reward.ci95,
        ...(v ? { validCallDiff: v.diff, validCallCi95: v.ci95 } : {}),
      });
    }
  }
  return { rows, tests };
}

/** The table: the results, the dense PPO run's train-inference gap and drift, and every stage's time. */
function reproTable(
  p: ReproPipeline,
  r: Pick<ReproTable, 'rows' | 'tests' | 'feasibility' | 'checkpoints' | 'durationMs'> & {
    sampled: ReproTable['sampled'] | null;
  },
): ReproTable {
  const dense = readMetrics(join(p.out, 'rl-dense'));
  // Every stage's time over every invocation, a resumed run included.
  const stages = readStageTimes(p.out);
  return {
    quick: p.quick,
    settings: p.s,
    rows: r.rows,
    tests: r.tests,
    ...(r.sampled ? { sampled: r.sampled } : {}),
    feasibility: r.feasibility,
    gap: {
      r3Tito: tailMean(dense, 'train_infer_gap_r3'),
      free: tailMean(dense, 'train_infer_gap_free'),
      lossDrift: tailMean(dense, 'loss_drift'),
    },
    checkpoints: r.checkpoints,
    out: p.out,
    durationMs: r.durationMs,
    stages,
    wallSeconds: totalWallSeconds(stages),
  };
}

/** The suites of the sampled evaluation: those named in the settings (an unknown name is an error), else the first. */
function sampledSuitesOf(
  s: ReproSettings,
  suites: readonly { name: string; path: string }[],
): { name: string; path: string }[] {
  if (s.sampledSuites.length === 0) return suites.slice(0, 1);
  return s.sampledSuites.map((name) => {
    const suite = suites.find((x) => x.name === name);
    if (!suite)
      throw new Error(
        `sampledSuites: '${name}' is not one of the evaluated suites (${suites.map((x) => x.name).join(', ')})`,
      );
    return suite;
  });
}

/** avg@K rows and paired tests from the sampled runs (null when none ran). */
function sampledResults(
  dirs: Record<string, Record<string, string>>,
  attempts: number,
  temperature: number,
): { rows: SampledRow[]; tests: SampledTest[] } | null {
  const suites = [...new Set(Object.values(dirs).flatMap((bySuite) => Object.keys(bySuite)))];
  if (suites.length === 0) return null;
  const episodes = (model: string, suite: string) => readRun(dirs[model]![suite]!).episodes;
  const rows: SampledRow[] = [];
  const tests: SampledTest[] = [];
  for (const suite of suites) {
    for (const model of SAMPLED_MODELS)
      rows.push(sampledRow(model, suite, attempts, temperature, episodes(model, suite)));
    for (const pair of SAMPLED_PAIRS)
      tests.push(sampledTest(pair, suite, attempts, temperature, episodes(pair[0], suite), episodes(pair[1], suite)));
  }
  return { rows, tests };
}
