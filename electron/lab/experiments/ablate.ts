/**
 * `t1lab ablate`: every cell of a grid, each a PPO run from the same config (and so the same SFT
 * checkpoint), for several seeds; every final checkpoint evaluated on the given suites; a report with
 * learning curves per cell (seed bands), final resolved rates with intervals, paired tests of each cell
 * against the baseline, the train-inference gap and the dense-reward guard's flags.
 *
 * Resumable: each stage leaves `<stage>.done.json` when it finished; a rerun skips finished stages and
 * resumes unfinished ones with their own `--resume` (no finished episode or step is redone).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { LabError } from '../../ipc/common/errors';
import { readDone, runT1labStep, writeDone } from './cli-step';
import { baselineCell, cellLabel, cellName, gridCells, parseGrid, type Cell, type GridAxis } from './grid';
import { writeAblationReport, type CellReport } from './ablate-report';
import { outcomeLines } from './outcome-lines';
import { writeOutcomes } from '../stats/outcomes-file';
import { OUTCOMES_FILE } from '../../domain/outcomes';

export interface AblateOptions {
  config: string;
  grid: string;
  seeds: number;
  out: string;
  evalSuites: string[];
  /** Extra arguments for every `train ppo` (e.g. --steps 2 for a smoke test). */
  trainArgs?: string[];
  /** Extra arguments for every `eval`. */
  evalArgs?: string[];
  log?: (line: string) => void;
}

export interface AblateSummary {
  out: string;
  axes: GridAxis[];
  baseline: string;
  cells: CellReport[];
  report: { markdown: string; html: string };
  durationMs: number;
}

interface TrainDone {
  checkpoint: string;
  runDir: string;
  final?: { reward?: number; resolved?: number; trainInferGap?: unknown };
}

/** Sections of the PPO config the grid's keys may live in: a key is set where the config has it, else in [ppo]. */
function setKey(config: Record<string, unknown>, key: string, value: string): void {
  const raw: unknown =
    value === 'true' ? true : value === 'false' ? false : /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  for (const section of Object.values(config)) {
    if (section && typeof section === 'object' && !Array.isArray(section) && key in section) {
      (section as Record<string, unknown>)[key] = raw;
      return;
    }
  }
  const ppo = (config.ppo ??= {}) as Record<string, unknown>;
  ppo[key] = raw;
}

export function cellConfig(baseToml: string, cell: Cell): string {
  const config = parseToml(baseToml) as Record<string, unknown>;
  for (const [k, v] of Object.entries(cell)) setKey(config, k, v);
  return `# written by t1lab ablate: the base config with ${cellLabel(cell)}\n${stringifyToml(config)}\n`;
}

function suiteName(suite: string): string {
  return (
    basename(suite)
      .replace(/\.jsonl$/, '')
      .replace(/[^A-Za-z0-9._-]/g, '_') || 'suite'
  );
}

async function step(
  label: string,
  doneFile: string,
  args: string[],
  resumeArgs: string[] | null,
  log: (l: string) => void,
): Promise<unknown> {
  const done = readDone<unknown>(doneFile);
  if (done) {
    log(`${label}: done before, skipped`);
    return done;
  }
  const result = await runT1labStep(resumeArgs ?? args, { log });
  if (result.code !== 0 || result.json === null)
    throw new Error(
      `${label} failed (exit ${result.code}); rerun the same command to resume it.\n${result.stdout.slice(-2000)}`,
    );
  writeDone(doneFile, result.json);
  return result.json;
}

export async function runAblation(options: AblateOptions): Promise<AblateSummary> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const out = resolve(options.out);
  const axes = parseGrid(options.grid);
  const { plan, baseToml } = openPlan(options, out);
  const cells = gridCells(axes);
  const total = cells.length * options.seeds;
  let index = 0;
  const reports: CellReport[] = [];
  for (const cell of cells) {
    const name = cellName(cell);
    const seeds: CellReport['seeds'] = [];
    for (let seed = 1; seed <= options.seeds; seed++) {
      index++;
      const progress = `[${index}/${total}]`;
      seeds.push(await runCellSeed({ out, cell, seed, progress, baseToml, evalSuites: plan.evalSuites, options, log }));
    }
    reports.push({ cell, name, seeds });
  }
  writeCellOutcomes(out, reports);
  const report = writeAblationReport(out, axes, baselineCell(axes), reports);
  const summary: AblateSummary = {
    out,
    axes,
    baseline: cellName(baselineCell(axes)),
    cells: reports,
    report,
    durationMs: Date.now() - started,
  };
  writeFileSync(join(out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}

interface AblationPlan {
  grid: string;
  seeds: number;
  config: string;
  evalSuites: string[];
}

/**
 * The ablation's plan (ablation.json), checked before any run starts: written in a new folder, and in one that
 * holds an ablation, the same grid, seeds and config (a rerun resumes it). Returns the base config's text.
 */
function openPlan(options: AblateOptions, out: string): { plan: AblationPlan; baseToml: string } {
  if (!Number.isInteger(options.seeds) || options.seeds < 1)
    throw new LabError('INVALID_PARAMS', `--seeds must be a positive integer, got ${options.seeds}`);
  const baseToml = readConfig(resolve(options.config));
  mkdirSync(out, { recursive: true });
  const planFile = join(out, 'ablation.json');
  const plan: AblationPlan = {
    grid: options.grid,
    seeds: options.seeds,
    config: resolve(options.config),
    evalSuites: options.evalSuites.map((s) => resolve(s)),
  };
  if (existsSync(planFile)) {
    const before = readPlan(planFile);
    if (before.grid !== plan.grid || before.seeds !== plan.seeds || before.config !== plan.config) {
      throw new LabError(
        'CONFLICT',
        `${out} holds another ablation (${before.grid}, ${before.seeds} seeds, ${before.config}): choose another --out`,
      );
    }
  } else writeFileSync(planFile, `${JSON.stringify({ ...plan, createdAt: new Date().toISOString() }, null, 2)}\n`);
  return { plan, baseToml };
}

/** The base config's text; a missing or malformed file fails here, before any run starts. */
function readConfig(path: string): string {
  if (!existsSync(path)) throw new LabError('NOT_FOUND', `--config: ${path} does not exist`);
  const text = readFileSync(path, 'utf8');
  try {
    parseToml(text);
  } catch (error) {
    throw new LabError('INVALID_PARAMS', `--config ${path}: not valid TOML: ${(error as Error).message}`);
  }
  return text;
}

/** The plan an earlier run of this folder wrote; a damaged one is named, never written over. */
function readPlan(planFile: string): AblationPlan {
  try {
    return JSON.parse(readFileSync(planFile, 'utf8')) as AblationPlan;
  } catch (error) {
    throw new LabError(
      'CONFLICT',
      `${planFile} is not an ablation plan (${(error as Error).message}): choose another --out or remove the file`,
    );
  }
}

/** One seed of one cell: its config written, a PPO run from it, its final checkpoint evaluated on every suite. */
async function runCellSeed(x: {
  out: string;
  cell: Cell;
  seed: number;
  /** `[i/n]`: this run's place among the ablation's. */
  progress: string;
  baseToml: string;
  evalSuites: string[];
  options: AblateOptions;
  log: (l: string) => void;
}): Promise<CellReport['seeds'][number]> {
  const { cell, seed, options, log } = x;
  const name = cellName(cell);
  const dir = join(x.out, 'cells', name, `seed-${seed}`);
  mkdirSync(dir, { recursive: true });
  const configFile = join(dir, 'config.toml');
  writeFileSync(configFile, cellConfig(x.baseToml, cell));
  const trainDir = join(dir, 'train');
  log(`${x.progress} ${cellLabel(cell)} seed ${seed}`);
  const trainArgs = [
    'train',
    'ppo',
    '--config',
    configFile,
    '--out',
    trainDir,
    '--seed',
    String(seed),
    '--json',
    ...(options.trainArgs ?? []),
  ];
  const resumeArgs = existsSync(join(trainDir, 'run.json'))
    ? ['train', 'ppo', '--config', configFile, '--resume', trainDir, '--json', ...(options.trainArgs ?? [])]
    : null;
  const train = (await step(
    `train ${name} seed ${seed}`,
    join(dir, 'train.done.json'),
    trainArgs,
    resumeArgs,
    log,
  )) as TrainDone;
  const evals: Record<string, string> = {};
  for (const suite of x.evalSuites) {
    const evalDir = join(dir, `eval-${suiteName(suite)}`);
    const args = [
      'eval',
      '--suite',
      suite,
      '--policy',
      `onnx:${train.checkpoint}`,
      '--out',
      evalDir,
      '--seed',
      String(seed),
      '--json',
      ...(options.evalArgs ?? []),
    ];
    const resume = existsSync(join(evalDir, 'run.json')) ? ['eval', '--resume', evalDir, '--json'] : null;
    await step(`eval ${name} seed ${seed} on ${suiteName(suite)}`, `${evalDir}.done.json`, args, resume, log);
    evals[suiteName(suite)] = evalDir;
  }
  return { seed, trainDir: train.runDir ?? trainDir, checkpoint: train.checkpoint, evals };
}

/**
 * Per-task outcomes of every cell, its seeds pooled as attempts as the report pools them: `t1lab compare
 * outcomes.jsonl#BASELINE outcomes.jsonl#CELL --suite SUITE` reruns a row's test from this file alone.
 */
function writeCellOutcomes(out: string, reports: CellReport[]): void {
  const lines = reports.flatMap((c) =>
    c.seeds.flatMap((s, index) =>
      Object.entries(s.evals).flatMap(([suite, runDir]) =>
        outcomeLines({ runDir, model: c.name, suite, seed: { value: s.seed, index } }),
      ),
    ),
  );
  writeOutcomes(join(out, OUTCOMES_FILE), lines);
}
