/**
 * `t1lab ablate`: a grid of PPO runs (single-axis or full factorial) × seeds, evaluated and reported.
 * `t1lab repro`: the paper's base → SFT → RL table at nano scale, end to end. Both are resumable: rerun
 * the same command to continue.
 */
import type { Command } from 'commander';
import { runAblation } from '../../lab/experiments/ablate';
import { runRepro } from '../../lab/experiments/repro';
import type { ReproTable } from '../../lab/experiments/repro-table';
import { readReproSettings, type ReproSettingsFile } from '../../lab/experiments/repro-settings';
import { appRoot } from '../../lab/app-paths';
import { UsageError } from '../errors';
import { printJson, table, type Io } from '../output';
import { join } from 'node:path';
import { reproTableCells } from '../../lab/experiments/repro-report';

/** The suites the reproduction evaluates on by default (committed under tasks/suites/): held-out seeds of
 * the families it trains on (id-nano-wide, 10 tasks per family: 130) and held-out families (nano-bench). id-heldout and
 * long-horizon draw on families the nano curriculum does not train on; pass them with --suites. */
export const DEFAULT_REPRO_SUITES = ['id-nano-wide', 'nano-bench'];

export function formatReproTable(t: ReproTable): string {
  const { results, tests, sampled, feasibility, stages } = reproTableCells(t);
  const gap = `train-inference gap (mean |logp_trainer − logp_sampler|): R3 + TITO ${t.gap.r3Tito ?? '—'}, free routing ${t.gap.free ?? '—'}; loss drift ${t.gap.lossDrift ?? '—'}`;
  const report = t.report ? `report: ${t.report.markdown}\n` : '';
  return `${t.quick ? 'QUICK settings: a smoke run of the pipeline, not the recipe\n' : ''}resolved [95% CI]; reward = mean dense reward; valid calls = share of turns with a tool call the harness could run\n${table(results)}\n${table(tests)}\n${sampled.length ? `${table(sampled)}\n` : ''}${t.feasibility?.length ? `${table(feasibility)}\n` : ''}${stages.length ? `${table(stages)}\n` : ''}${gap}\n${report}${t.out}\n`;
}

export function registerExperiments(program: Command, io: Io): void {
  registerAblate(program, io);
  registerRepro(program, io);
}

interface AblateOptions {
  config: string;
  grid: string;
  seeds: string;
  out: string;
  eval?: string;
  steps?: string;
  evalMaxTurns?: string;
  evalMaxTokens?: string;
  evalAgentTimeout?: string;
  evalTemperature?: string;
  evalConcurrency?: string;
  json?: boolean;
}

/** `ablate`: a grid of PPO settings × seeds, each cell trained, evaluated and reported. */
function registerAblate(program: Command, io: Io): void {
  program
    .command('ablate')
    .description(
      'run every cell of a grid of PPO settings for several seeds, evaluate each, and write report.md/report.html',
    )
    .requiredOption('--config <file>', 'the PPO config every cell starts from')
    .requiredOption(
      '--grid <spec>',
      'axes and values, e.g. "reward=dense,binary tito=exact,retokenize r3=on,off" (first value = baseline)',
    )
    .option('--seeds <n>', 'seeds per cell (default 3)', '3')
    .requiredOption('--out <dir>', 'the ablation folder (rerun with the same folder to resume)')
    .option('--eval <suites>', 'suites to evaluate every final checkpoint on, comma-separated')
    .option('--steps <n>', 'PPO steps per cell (overrides the config)')
    .option('--eval-max-turns <n>', 'turn limit of the evaluations (default: the harness default, 300)')
    .option('--eval-max-tokens <n>', 'completion tokens per turn in the evaluations')
    .option('--eval-agent-timeout <s>', "the agent's seconds per evaluation episode (default: the task's own timeout)")
    .option(
      '--eval-temperature <t>',
      'sampling temperature of the evaluations (0: greedy; default: the policy default, 1)',
    )
    .option('--eval-concurrency <n>', 'sandboxes at once in each evaluation')
    .option('--json', 'print the summary as JSON')
    .action((opts: AblateOptions) => ablateCommand(io, opts));
}

async function ablateCommand(io: Io, opts: AblateOptions): Promise<void> {
  const seeds = checkAblateOptions(opts);
  let summary;
  try {
    summary = await runAblation({
      config: opts.config,
      grid: opts.grid,
      seeds,
      out: opts.out,
      evalSuites: opts.eval ? opts.eval.split(',').filter(Boolean) : [],
      trainArgs: opts.steps ? ['--steps', opts.steps] : [],
      evalArgs: ablationEvalArgs(opts),
      log: (l) => io.err(`t1lab ablate: ${l}\n`),
    });
  } catch (error) {
    const message = (error as Error).message;
    if (message.startsWith('--grid') || message.startsWith('--seeds')) throw new UsageError(message);
    throw error;
  }
  if (opts.json) printJson(io, summary);
  else
    io.out(
      `${summary.cells.length} cells × ${seeds} seed(s) done: ${summary.report.markdown}, ${summary.report.html}\n`,
    );
}

/** The ablation's numeric flags checked up front (a usage error, exit 2); returns the seed count. Checked here,
 * not by the first eval: a bad value would otherwise surface only after the first cell's training. */
function checkAblateOptions(opts: AblateOptions): number {
  const seeds = Number(opts.seeds);
  if (!Number.isInteger(seeds) || seeds < 1)
    throw new UsageError(`--seeds must be a positive integer, got '${opts.seeds}'`);
  if (opts.steps !== undefined && !/^[1-9]\d*$/.test(opts.steps))
    throw new UsageError(`--steps must be a positive integer, got '${opts.steps}'`);
  for (const [flag, value] of [
    ['--eval-max-turns', opts.evalMaxTurns],
    ['--eval-max-tokens', opts.evalMaxTokens],
    ['--eval-agent-timeout', opts.evalAgentTimeout],
    ['--eval-concurrency', opts.evalConcurrency],
  ] as const) {
    if (value !== undefined && !/^[1-9]\d*$/.test(value))
      throw new UsageError(`${flag} must be a positive integer, got '${value}'`);
  }
  if (
    opts.evalTemperature !== undefined &&
    !(/^\d+(\.\d+)?$/.test(opts.evalTemperature) && Number(opts.evalTemperature) <= 2)
  )
    throw new UsageError(`--eval-temperature must be a number from 0 to 2, got '${opts.evalTemperature}'`);
  return seeds;
}

/** The `t1lab eval` flags every cell's evaluation runs with, from the ablation's --eval-* flags. */
function ablationEvalArgs(opts: AblateOptions): string[] {
  return [
    ...(opts.evalMaxTurns ? ['--max-turns', opts.evalMaxTurns] : []),
    ...(opts.evalMaxTokens ? ['--max-tokens', opts.evalMaxTokens] : []),
    ...(opts.evalAgentTimeout ? ['--agent-timeout', opts.evalAgentTimeout] : []),
    ...(opts.evalTemperature !== undefined ? ['--temperature', opts.evalTemperature] : []),
    ...(opts.evalConcurrency ? ['--concurrency', opts.evalConcurrency] : []),
  ];
}

interface ReproOptions {
  out: string;
  quick?: boolean;
  suites?: string;
  settings?: string;
  json?: boolean;
}

/** `repro`: the paper's table at nano scale, end to end. */
function registerRepro(program: Command, io: Io): void {
  program
    .command('repro')
    .description(
      "the paper's base → SFT → RL table at nano scale: LM pretraining, SFT, PPO (dense and binary), evaluated with intervals",
    )
    .requiredOption('--out <dir>', 'the reproduction folder (rerun with the same folder to resume)')
    .option('--quick', 'small settings that finish in about 15 minutes on 2 cores (a smoke run, said in the output)')
    .option(
      '--suites <list>',
      `eval suites as NAME=PATH, comma-separated (default: ${DEFAULT_REPRO_SUITES.map((s) => `tasks/suites/${s}.jsonl`).join(', ')})`,
    )
    .option(
      '--settings <file>',
      'a JSON file of settings laid over the preset (trainTasks, families, firstTurnTasks, sftDrillSamples, lmSteps, sftSteps, ppoSteps, binarySteps, probeTasksPerFamily, probeAttempts, overrides, evalTasks, evalArgs, seed, preset)',
    )
    .option('--json', 'print the table as JSON')
    .action((opts: ReproOptions) => reproCommand(io, opts));
}

async function reproCommand(io: Io, opts: ReproOptions): Promise<void> {
  const suites = reproSuites(opts.suites);
  const settings = reproSettings(opts.settings);
  const t = await runRepro({
    out: opts.out,
    quick: !!opts.quick,
    suites,
    settings,
    log: (l) => io.err(`t1lab repro: ${l}\n`),
  });
  if (opts.json) printJson(io, t);
  else io.out(formatReproTable(t));
}

/** --suites NAME=PATH,... or the default suites committed under tasks/suites/. */
function reproSuites(list: string | undefined): { name: string; path: string }[] {
  if (!list)
    return DEFAULT_REPRO_SUITES.map((name) => ({ name, path: join(appRoot(), 'tasks', 'suites', `${name}.jsonl`) }));
  return list.split(',').map((s) => {
    const [name, path] = s.split('=');
    if (!name || !path) throw new UsageError(`--suites: '${s}' is not NAME=PATH`);
    return { name, path };
  });
}

/** The --settings file, if given; a file that cannot be read or does not parse is a usage error. */
function reproSettings(file: string | undefined): ReproSettingsFile | undefined {
  try {
    return file ? readReproSettings(file) : undefined;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
