/**
 * `t1lab repro`: the paper's base → SFT → RL table at nano scale, end to end, as one resumable pipeline of
 * `t1lab` stages (each its own process, each resumable, each leaving `<stage>.done.json`):
 *   model init → train lm (base) → tasks synth (train pack) → tasks sft-data → train sft →
 *   train ppo (dense reward, TITO exact, R3 on) and train ppo (binary reward) → eval of every checkpoint
 *   on every suite → the table (resolved with intervals, paired p-values, train-inference gap, drift).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { readDone, runT1labStep, writeDone } from './cli-step';
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
  // Two PPO runs of 16 steps. At 12 steps of about 220 s the whole run (without avg@8) took 2 h 52 min
  // (docs/examples/repro-full). A step of these settings takes 44 s on the bench's tasks (npm run bench --
  // ppo --recipe) but about 96 s on a probe's pool, where episodes that never submit decode their whole
  // budget (docs/examples/copy-drills, the PPO run); 2 x 16 of those and the avg@8 evaluations at 8 at once
  // come to about 3 hours by the stage times (docs/guide/recipe-learning.md): an estimate, not a measured run.
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

type Json = Record<string, unknown>;

/** `[flag, value]` when the argument list has the flag, else nothing. */
function flagOf(args: readonly string[], flag: string): string[] {
  const i = args.indexOf(flag);
  return i >= 0 && i + 1 < args.length ? [flag, args[i + 1]!] : [];
}

function setDotted(config: Json, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let at = config;
  for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Json;
  at[parts.at(-1)!] = value;
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

export async function runRepro(options: ReproOptions): Promise<ReproTable> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const out = resolve(options.out);
  mkdirSync(out, { recursive: true });
  const s: ReproSettings = applyReproSettings(options.quick ? REPRO_QUICK : REPRO_FULL, options.settings);
  // Checked before hours of training: an unknown suite name would otherwise fail only at the evaluations.
  const sampledSuites = s.sampledAttempts > 0 ? sampledSuitesOf(s, options.suites) : [];
  if (options.quick)
    log(
      'quick mode: every stage is cut short (see the settings in repro.json); the numbers show the pipeline works, not what the recipe can reach',
    );
  writeFileSync(
    join(out, 'repro.json'),
    `${JSON.stringify({ quick: options.quick, settings: s, suites: options.suites }, null, 2)}\n`,
  );

  const stage = async (name: string, args: string[]): Promise<Json> => {
    const doneFile = join(out, `${name}.done.json`);
    const done = readDone<Json>(doneFile);
    if (done) {
      log(`${name}: done before, skipped`);
      return done;
    }
    const t0 = performance.now();
    const r = await runT1labStep(args, { log: (l) => log(`${name}: ${l}`) });
    addStageTime(out, name, (performance.now() - t0) / 1000);
    if (r.code !== 0 || r.json === null)
      throw new Error(
        `stage ${name} failed (exit ${r.code}); rerun t1lab repro with the same --out to resume.\n${r.stdout.slice(-2000)}`,
      );
    writeDone(doneFile, r.json);
    return r.json as Json;
  };
  /** A stage's run config: the preset's (`train init-config`) with `settings`, then the stage's overrides, over it. */
  const stageConfig = async (kind: 'lm' | 'sft' | 'ppo', settings: Record<string, unknown>): Promise<Json> => {
    const init = await runT1labStep(['train', 'init-config', '--stage', kind, '--preset', s.preset]);
    if (init.code !== 0) throw new Error(`t1lab train init-config --stage ${kind} failed (exit ${init.code})`);
    const config = parseToml(init.stdout) as Json;
    for (const [k, v] of Object.entries({ ...settings, ...s.overrides[kind] })) setDotted(config, k, v);
    return config;
  };
  const trainStage = async (
    name: string,
    kind: 'lm' | 'sft' | 'ppo',
    extra: string[],
    settings: Record<string, unknown>,
  ): Promise<string> => {
    const configFile = join(out, `${name}.toml`);
    if (!existsSync(configFile)) {
      const config = await stageConfig(kind, settings);
      writeFileSync(
        configFile,
        `# written by t1lab repro${options.quick ? ' --quick' : ''}\n${stringifyToml(config)}\n`,
      );
    }
    const runDir = join(out, name);
    const resume = existsSync(join(runDir, 'run.json'));
    const args = [
      'train',
      kind,
      '--config',
      configFile,
      ...(resume ? ['--resume', runDir] : ['--out', runDir, ...extra]),
      '--json',
    ];
    const result = await stage(name, args);
    const checkpoint = result.checkpoint;
    if (typeof checkpoint !== 'string') throw new Error(`stage ${name} printed no checkpoint`);
    return checkpoint;
  };

  /**
   * PPO's pool: a probe pack of other train tasks of the same families, run by the SFT checkpoint at PPO's
   * temperature and budget with several attempts; PPO draws from the families where attempts disagreed
   * (all of the train pack, with a warning, when none did).
   */
  const ppoPool = async (sft: string): Promise<string> => {
    const probePack = join(out, 'probe.jsonl');
    const perFamily = s.probeTasksPerFamily * Math.max(1, s.families.length);
    await stage('probe-synth', [
      'tasks',
      'synth',
      '--out',
      probePack,
      '--count',
      String(perFamily),
      '--seed',
      String(s.seed + 2),
      '--split',
      'train',
      ...families,
      '--json',
    ]);
    // PPO's own settings, so the probe samples as PPO will.
    const ppo = ((await stageConfig('ppo', {})).ppo ?? {}) as Record<string, unknown>;
    const budgetArgs = [
      ['--max-turns', ppo.max_turns],
      ['--max-tokens', ppo.max_tokens],
      ['--agent-timeout', ppo.agent_timeout_sec],
      ['--temperature', ppo.temperature],
      ['--concurrency', ppo.concurrency],
    ].flatMap(([flag, v]) => (v === undefined || v === null ? [] : [String(flag), String(v)]));
    const probeDir = join(out, 'probe');
    const resume = existsSync(join(probeDir, 'run.json'));
    await stage(
      'probe',
      resume
        ? ['eval', '--resume', probeDir, '--json']
        : [
            'eval',
            '--suite',
            probePack,
            '--policy',
            `onnx:${sft}`,
            '--attempts',
            String(s.probeAttempts),
            ...budgetArgs,
            '--seed',
            String(s.seed),
            '--out',
            probeDir,
            '--json',
          ],
    );
    const poolPack = join(out, 'ppo-pool.jsonl');
    const pool = await stage('pool', [
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
    log(
      `ppo pool: ${String(pool.tasks)} train tasks in ${(pool.kept as string[]).length ? (pool.kept as string[]).join(', ') : 'every family (no family had attempts that disagreed)'}`,
    );
    return poolPack;
  };

  const init = await stage('init', [
    'model',
    'init',
    '--preset',
    s.preset,
    '--out',
    join(out, 'init'),
    '--seed',
    String(s.seed),
    '--json',
  ]);
  const initDir = typeof init.path === 'string' ? init.path : join(out, 'init');
  const base = await trainStage(
    'lm',
    'lm',
    ['--model', initDir, '--steps', String(s.lmSteps), '--seed', String(s.seed)],
    {},
  );
  const pack = join(out, 'train.jsonl');
  const families = s.families.length ? ['--families', s.families.join(',')] : [];
  await stage('synth', [
    'tasks',
    'synth',
    '--out',
    pack,
    '--count',
    String(s.trainTasks),
    '--seed',
    String(s.seed),
    '--split',
    'train',
    ...families,
    '--json',
  ]);
  // The SFT prompts state the evaluation's budget (turns, agent time), so training and evaluation read the same words.
  const budget = [...flagOf(s.evalArgs, '--max-turns'), ...flagOf(s.evalArgs, '--agent-timeout')];
  const sftData = join(out, 'sft.jsonl');
  await stage('sft-data', [
    'tasks',
    'sft-data',
    '--suite',
    pack,
    '--checkpoint',
    base,
    '--out',
    sftData,
    ...budget,
    '--json',
  ]);
  const sftFiles = [sftData];
  if (s.firstTurnTasks > 0) {
    const firstPack = join(out, 'train-first.jsonl');
    await stage('synth-first', [
      'tasks',
      'synth',
      '--out',
      firstPack,
      '--count',
      String(s.firstTurnTasks),
      '--seed',
      String(s.seed + 1),
      '--split',
      'train',
      ...families,
      '--json',
    ]);
    const firstData = join(out, 'sft-first.jsonl');
    await stage('sft-first', [
      'tasks',
      'sft-data',
      '--suite',
      firstPack,
      '--checkpoint',
      base,
      '--out',
      firstData,
      '--first-turns',
      ...budget,
      '--json',
    ]);
    sftFiles.push(firstData);
  }
  if (s.sftDrillSamples > 0) {
    const drillData = join(out, 'sft-drills.jsonl');
    await stage('sft-drills', [
      'tasks',
      'sft-drills',
      '--like',
      sftData,
      '--checkpoint',
      base,
      '--count',
      String(s.sftDrillSamples),
      '--out',
      drillData,
      '--json',
    ]);
    sftFiles.push(drillData);
  }
  const sft = await trainStage(
    'sft',
    'sft',
    ['--model', base, '--steps', String(s.sftSteps), '--seed', String(s.seed)],
    { 'data.path': sftFiles },
  );
  const ppoPack = s.probeTasksPerFamily > 0 ? await ppoPool(sft) : pack;
  const ppoArgs = ['--model', sft, '--data', ppoPack, '--steps', String(s.ppoSteps), '--seed', String(s.seed)];
  const rlDense = await trainStage('rl-dense', 'ppo', ppoArgs, {
    'ppo.reward': 'dense',
    'ppo.tito': 'exact',
    'ppo.r3': 'on',
  });
  const binaryArgs = [
    '--model',
    sft,
    '--data',
    ppoPack,
    '--steps',
    String(s.binarySteps ?? s.ppoSteps),
    '--seed',
    String(s.seed),
  ];
  const rlBinary = await trainStage('rl-binary', 'ppo', binaryArgs, {
    'ppo.reward': 'binary',
    'ppo.tito': 'exact',
    'ppo.r3': 'on',
  });
  const checkpoints = { base, sft, 'rl-dense': rlDense, 'rl-binary': rlBinary };

  const evalDirs: Record<string, Record<string, string>> = {};
  const suitePaths = new Map(options.suites.map((suite) => [suite.name, evalSuite(out, suite, s.evalTasks)]));
  for (const [model, checkpoint] of Object.entries(checkpoints)) {
    for (const suite of options.suites) {
      const dir = join(out, `eval-${model}-${suite.name}`);
      const resume = existsSync(join(dir, 'run.json'));
      await stage(
        `eval-${model}-${suite.name}`,
        resume
          ? ['eval', '--resume', dir, '--json']
          : [
              'eval',
              '--suite',
              suitePaths.get(suite.name)!,
              '--policy',
              `onnx:${checkpoint}`,
              '--out',
              dir,
              '--seed',
              String(s.seed),
              ...s.evalArgs,
              '--json',
            ],
      );
      (evalDirs[model] ??= {})[suite.name] = dir;
    }
  }

  // avg@K at PPO's temperature: K attempts per task of each trained model, compared paired by task.
  const sampledDirs: Record<string, Record<string, string>> = {};
  let sampledTemperature = 0;
  if (s.sampledAttempts > 0) {
    sampledTemperature = Number(((await stageConfig('ppo', {})).ppo as Json | undefined)?.temperature ?? 1);
    const sampledArgs = sampledEvalArgs(s.evalArgs, sampledTemperature, s.sampledAttempts);
    for (const model of SAMPLED_MODELS) {
      for (const suite of sampledSuites) {
        const name = `eval-${model}-${suite.name}-avg${s.sampledAttempts}`;
        const dir = join(out, name);
        const resume = existsSync(join(dir, 'run.json'));
        await stage(
          name,
          resume
            ? ['eval', '--resume', dir, '--json']
            : [
                'eval',
                '--suite',
                suitePaths.get(suite.name)!,
                '--policy',
                `onnx:${checkpoints[model]}`,
                '--out',
                dir,
                '--seed',
                String(s.seed),
                ...sampledArgs,
                '--json',
              ],
        );
        (sampledDirs[model] ??= {})[suite.name] = dir;
      }
    }
  }

  // Every model's per-task outcomes, committed beside the report: `t1lab compare outcomes.jsonl#sft outcomes.jsonl#rl-dense`.
  // The sampled runs' lines carry the suite as `<suite>@avg<K>`, so a compare of one suite never mixes designs.
  writeOutcomes(join(out, OUTCOMES_FILE), [
    ...Object.entries(evalDirs).flatMap(([model, bySuite]) =>
      Object.entries(bySuite).flatMap(([suite, runDir]) => outcomeLines({ runDir, model, suite })),
    ),
    ...Object.entries(sampledDirs).flatMap(([model, bySuite]) =>
      Object.entries(bySuite).flatMap(([suite, runDir]) =>
        outcomeLines({ runDir, model, suite: `${suite}@avg${s.sampledAttempts}` }),
      ),
    ),
  ]);

  // What the oracle itself can finish at these budgets, in the models' tokenizer (tasks feasible).
  const feasibilityStarted = performance.now();
  const feasibility: ReproFeasibility[] = [];
  for (const suite of options.suites)
    feasibility.push(
      await suiteFeasibility(sft, suite.name, suitePaths.get(suite.name)!, evalBudget(s.evalArgs), 'eval'),
    );
  const ppoLimits = ppoBudget(join(out, 'rl-dense.toml'));
  if (ppoLimits) feasibility.push(await suiteFeasibility(sft, 'train', pack, ppoLimits, 'ppo'));
  for (const f of feasibility)
    if (f.share < 0.5)
      log(
        `warning: the oracle itself can finish only ${f.feasible}/${f.tasks} tasks of ${f.suite} at ${f.maxTurns} turns x ${f.maxTokens} tokens (${f.budget} budget)`,
      );
  addStageTime(out, 'feasibility', (performance.now() - feasibilityStarted) / 1000);
  const feasibleShare = (suite: string) => feasibility.find((f) => f.suite === suite && f.budget === 'eval')?.share;

  const rows: ReproRow[] = [];
  const tests: ReproTable['tests'] = [];
  const episodes = (model: string, suite: string) => readRun(evalDirs[model]![suite]!).episodes;
  const calls = new Map<string, Map<string, TaskCalls>>();
  const callsOf = (model: string, suite: string) => {
    const key = `${model}\u0000${suite}`;
    if (!calls.has(key)) calls.set(key, validCallsByTask(evalDirs[model]![suite]!, episodes(model, suite)));
    return calls.get(key)!;
  };
  for (const suite of options.suites) {
    for (const model of Object.keys(checkpoints) as ReproRow['model'][]) {
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
    for (const [a, b] of [
      ['base', 'sft'],
      ['sft', 'rl-dense'],
      ['sft', 'rl-binary'],
      ['rl-binary', 'rl-dense'],
    ] as const) {
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
  const sampled = sampledResults(sampledDirs, s.sampledAttempts, sampledTemperature);
  const dense = readMetrics(join(out, 'rl-dense'));
  // Every stage's time over every invocation, a resumed run included.
  const stages = readStageTimes(out);
  const table: ReproTable = {
    quick: options.quick,
    settings: s,
    rows,
    tests,
    ...(sampled ? { sampled } : {}),
    feasibility,
    gap: {
      r3Tito: tailMean(dense, 'train_infer_gap_r3'),
      free: tailMean(dense, 'train_infer_gap_free'),
      lossDrift: tailMean(dense, 'loss_drift'),
    },
    checkpoints,
    out,
    durationMs: Date.now() - started,
    stages,
    wallSeconds: totalWallSeconds(stages),
  };
  table.report = writeReproReport(table);
  writeFileSync(join(out, 'table.json'), `${JSON.stringify(table, null, 2)}\n`);
  return table;
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
