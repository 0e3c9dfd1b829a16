/**
 * A run's name, tags and notes (`meta.json` in its folder), and removing a run: the one service behind the
 * Runs and Training pages' editors and `t1lab runs tag|rename|note|rm`. Eval runs live in `runs/`, training
 * runs in `training/`; an id is looked up in both. The CLI also takes a run folder's path (runAtPath).
 */
import { existsSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import { processAlive } from '../../../native/util/process-alive';
import { LabError } from '../../ipc/common/errors';
import {
  applyRunMetaPatch,
  EMPTY_RUN_META,
  RUN_META_FILE,
  RunMeta,
  type RunKindOfFolder,
  type RunMetaPatch,
  type RunMetaResult,
  type RunRemoved,
} from '../../domain/run-meta';
import { describeTrainingRun, isTrainingRun, viewRunsDir } from '../training/view-runs';
import { runsDir } from './dirs';
import { writeFileAtomic } from './store';

/** Written by an evaluation while it runs (its pid), removed when it ends: how a CLI knows a run is busy. */
export const RUNNING_FILE = 'running.json';

export function readRunMeta(dir: string): RunMeta {
  const file = join(dir, RUN_META_FILE);
  if (!existsSync(file)) return EMPTY_RUN_META;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new LabError('INVALID_PARAMS', `${file}: not JSON (${(error as Error).message})`);
  }
  const parsed = RunMeta.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new LabError(
      'INVALID_PARAMS',
      `${file}: field '${issue?.path.join('.') || '(root)'}': ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

/** Like readRunMeta, for lists: a damaged meta.json shows as no meta rather than hiding the run. */
export function readRunMetaOrEmpty(dir: string): RunMeta {
  try {
    return readRunMeta(dir);
  } catch {
    return EMPTY_RUN_META;
  }
}

function inside(root: string, id: string): string {
  const base = resolve(root);
  const dir = resolve(base, id);
  if (!dir.startsWith(base + sep) || dir === base)
    throw new LabError('INVALID_PARAMS', `run id '${id}' is not a folder name`);
  return dir;
}

/** The folder and kind of a run id: an evaluation under runs/, else a training run under training/. */
export function locateRun(dataDir: string, runId: string): { kind: RunKindOfFolder; dir: string } {
  const evalDir = inside(runsDir(dataDir), runId);
  if (existsSync(join(evalDir, 'run.json'))) return { kind: 'eval', dir: evalDir };
  const trainDir = inside(viewRunsDir(dataDir), runId);
  if (isTrainingRun(trainDir)) return { kind: 'training', dir: trainDir };
  throw new LabError('NOT_FOUND', `no run '${runId}' in ${runsDir(dataDir)} or ${viewRunsDir(dataDir)}`);
}

/** A run found by id under the data folder, or by the path of its folder. */
export interface LocatedRun {
  runId: string;
  kind: RunKindOfFolder;
  dir: string;
}

/**
 * A run folder given by its path, wherever it is: `t1lab eval --out DIR` writes runs outside the data folder,
 * and they deserve names and tags too. Only the CLI takes paths; the pages name runs by id.
 */
export function runAtPath(path: string): LocatedRun {
  const dir = resolve(path);
  if (existsSync(join(dir, 'run.json'))) return { runId: basename(dir), kind: 'eval', dir };
  if (isTrainingRun(dir)) return { runId: basename(dir), kind: 'training', dir };
  throw new LabError('NOT_FOUND', `${dir} is not a run folder (no run.json, and not a training run)`);
}

export function updateRunMeta(dataDir: string, runId: string, patch: RunMetaPatch): RunMetaResult {
  return updateMetaOf({ runId, ...locateRun(dataDir, runId) }, patch);
}

export function updateMetaOf({ runId, kind, dir }: LocatedRun, patch: RunMetaPatch): RunMetaResult {
  const meta = applyRunMetaPatch(readRunMeta(dir), patch);
  writeFileAtomic(join(dir, RUN_META_FILE), `${JSON.stringify(meta, null, 2)}\n`);
  return { runId, kind, dir, meta };
}

export function markEvalRunning(dir: string): void {
  writeFileSync(
    join(dir, RUNNING_FILE),
    `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() })}\n`,
  );
}

export function clearEvalRunning(dir: string): void {
  try {
    unlinkSync(join(dir, RUNNING_FILE));
  } catch {
    // already gone
  }
}

/** Whether an evaluation works on this folder now: its running.json names a live process. */
export function evalRunActive(dir: string): boolean {
  try {
    const pid = (JSON.parse(readFileSync(join(dir, RUNNING_FILE), 'utf8')) as { pid?: unknown }).pid;
    return typeof pid === 'number' && processAlive(pid);
  } catch {
    return false;
  }
}

const ACTIVE_TRAINING = new Set(['running', 'starting', 'paused', 'stopping']);

/**
 * Delete a run folder. A run something works on (an evaluation or a trainer) is refused: stop it first.
 * `busy`: ids the caller knows are running (the host's live evaluations and trainings).
 */
export function removeRun(dataDir: string, runId: string, busy: ReadonlySet<string> = new Set()): RunRemoved {
  return removeRunFolder({ runId, ...locateRun(dataDir, runId) }, busy);
}

export function removeRunFolder({ runId, kind, dir }: LocatedRun, busy: ReadonlySet<string> = new Set()): RunRemoved {
  const running =
    busy.has(runId) ||
    (kind === 'eval' ? evalRunActive(dir) : ACTIVE_TRAINING.has(describeTrainingRun(runId, dir, null).state));
  if (running) throw new LabError('CONFLICT', `run '${runId}' is running: cancel or stop it before removing it`);
  rmSync(dir, { recursive: true, force: true });
  return { runId, kind, dir, removed: true };
}
