/**
 * Training run folders read back for the Training page and `t1lab train watch`: which runs there are, their
 * state and latest figures, their checkpoints. Run folders are the trainer's (`$T1LAB_HOME/training/<id>`:
 * run.json with the stage, metrics.jsonl, status.json, checkpoints/step-NNNNNNN/). Everything here reads
 * files only, so runs started from the CLI show up exactly like the app's own; the trainer worker's live
 * state, when it runs one, overrides what the files say.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { processAlive } from '../../../native/util/process-alive';
import { LabError } from '../../ipc/common/errors';
import { TrainingRunState, type TrainingCheckpoint, type TrainingRunSummary } from '../../domain/training-view';
import type { MetricRow } from '../../domain/training-metrics';
import { RUN_META_FILE, RunMeta } from '../../domain/run-meta';
import { runFields } from '../../domain/run-fields';
import { settingsKey } from '../../domain/seed-groups';

export const VIEW_FILES = {
  manifest: 'run.json',
  status: 'status.json',
  metrics: 'metrics.jsonl',
  checkpoints: 'checkpoints',
  rollouts: 'rollouts',
} as const;

/** A run whose files have not moved for this long, with no state saying it ended, was killed. */
const STALE_RUNNING_MS = 120_000;

export function viewRunsDir(dataDir: string): string {
  return join(dataDir, 'training');
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Whether a folder is a training run: its run.json names a stage. */
export function isTrainingRun(dir: string): boolean {
  return typeof readJson(join(dir, VIEW_FILES.manifest))?.stage === 'string';
}

/** The folder of a training run id (a folder name, never a path). */
export function viewRunPath(dataDir: string, runId: string): string {
  const root = resolve(viewRunsDir(dataDir));
  const dir = resolve(root, runId);
  if (!dir.startsWith(root + sep)) throw new LabError('INVALID_PARAMS', `run id '${runId}' is not a folder name`);
  if (!isTrainingRun(dir))
    throw new LabError(
      'NOT_FOUND',
      `no training run '${runId}' in ${root} (a training run has a run.json with a "stage")`,
    );
  return dir;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** The run's planned step count, wherever its config keeps it (`[schedule] steps`, `steps`, `[stage] steps`). */
function totalSteps(manifest: Record<string, unknown>): number | null {
  const config = obj(manifest.config);
  for (const section of [
    config,
    obj(config.schedule),
    obj(config.train),
    obj(config[str(manifest.stage) ?? '']),
    obj(config.training),
  ]) {
    const n = num(section.steps) ?? num(section.total_steps) ?? num(section.totalSteps);
    if (n !== null) return n;
  }
  return num(manifest.totalSteps);
}

/** What the trainer worker says of a run it works on. */
export interface LiveRunState {
  state: string;
  step: number;
  totalSteps: number;
  etaS: number | null;
  message: string | null;
}

/**
 * What the list says of a run, from its files and its last metrics row (`last`); `live` is the trainer's
 * word when it runs it.
 */
export function describeTrainingRun(
  id: string,
  dir: string,
  last: MetricRow | null,
  live?: LiveRunState,
): TrainingRunSummary {
  const manifest = readJson(join(dir, VIEW_FILES.manifest)) ?? {};
  const status = readJson(join(dir, VIEW_FILES.status)) ?? {};
  const total = live?.totalSteps ?? num(status.totalSteps) ?? totalSteps(manifest);
  const step = live?.step ?? (last ? last.step : (num(status.step) ?? 0));
  let mtime = 0;
  for (const f of [join(dir, VIEW_FILES.metrics), join(dir, VIEW_FILES.status)]) {
    try {
      mtime = Math.max(mtime, statSync(f).mtimeMs);
    } catch {
      // not written yet
    }
  }
  const checkpoints = Array.isArray(manifest.checkpoints) ? manifest.checkpoints.map(obj) : [];
  const declared = TrainingRunState.safeParse(live?.state ?? status.state);
  let state: TrainingRunSummary['state'];
  if (declared.success) state = declared.data;
  else if (total !== null && checkpoints.some((c) => num(c.step) === total)) state = 'completed';
  else state = mtime && Date.now() - mtime < STALE_RUNNING_MS ? 'running' : 'incomplete';
  // The files say it trains, but the process that wrote them is gone (the trainer's status.json names its
  // pid), or, without a pid, nothing moved for long: it was killed, and resumes.
  const active = state === 'running' || state === 'starting' || state === 'paused' || state === 'stopping';
  const pid = num(status.pid);
  if (
    !live &&
    active &&
    (pid !== null
      ? pid !== process.pid && !processAlive(pid)
      : state !== 'paused' && mtime > 0 && Date.now() - mtime > STALE_RUNNING_MS)
  )
    state = 'incomplete';
  const figureKey = ['reward_dense', 'reward', 'eval_loss', 'loss'].find((k) => last && k in last.values);
  const wall = last?.wall ?? 0;
  const etaS = live
    ? live.etaS
    : state === 'running' && total !== null && step > 0 && wall > 0
      ? ((total - step) * wall) / step
      : null;
  return {
    id,
    dir,
    stage: str(manifest.stage) ?? '?',
    state,
    step,
    totalSteps: total,
    etaS,
    lastFigure: figureKey && last ? { key: figureKey, value: last.values[figureKey]! } : null,
    startedAt: str(manifest.createdAt) ?? null,
    updatedAt: mtime ? new Date(mtime).toISOString() : null,
    message: live?.message ?? str(status.message),
    ...metaOf(dir),
    ...seedOf(manifest),
  };
}

/** The config's seed, and the stage and settings without seeds (what runs pooled over seeds share). */
function seedOf(manifest: Record<string, unknown>): { seed: number | null; settingsKey: string } {
  const config = obj(manifest.config);
  const fields = runFields(config, {});
  return { seed: num(config.seed), settingsKey: settingsKey({ stage: str(manifest.stage), ...fields }) };
}

/** meta.json (name, tags, notes) as the list shows it; a damaged file shows as none. */
function metaOf(dir: string): { name: string | null; tags: string[]; notes: string } {
  const meta = readJson(join(dir, RUN_META_FILE));
  const parsed = RunMeta.safeParse(meta);
  return parsed.success
    ? { name: parsed.data.name, tags: parsed.data.tags, notes: parsed.data.notes }
    : { name: null, tags: [], notes: '' };
}

export function listTrainingRunDirs(dataDir: string): { id: string; dir: string }[] {
  const root = viewRunsDir(dataDir);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((id) => ({ id, dir: join(root, id) }))
    .filter((r) => isTrainingRun(r.dir));
}

const STEP_DIR = /^step-(\d+)$/;

/** The run's checkpoints (`checkpoints/step-N/` with a manifest), oldest first; best and eval loss from run.json. */
export function listTrainingCheckpoints(dir: string): Omit<TrainingCheckpoint, 'evalRuns'>[] {
  const root = join(dir, VIEW_FILES.checkpoints);
  if (!existsSync(root)) return [];
  const refs = new Map<number, Record<string, unknown>>();
  const manifestRefs = readJson(join(dir, VIEW_FILES.manifest))?.checkpoints;
  if (Array.isArray(manifestRefs))
    for (const r of manifestRefs.map(obj)) if (num(r.step) !== null) refs.set(num(r.step)!, r);
  const out: Omit<TrainingCheckpoint, 'evalRuns'>[] = [];
  for (const name of readdirSync(root)) {
    const match = STEP_DIR.exec(name);
    const path = join(root, name);
    const manifest = readJson(join(path, 'manifest.json'));
    if (!match || !manifest) continue; // a partial (being written) or foreign folder
    const step = Number(match[1]);
    const ref = refs.get(step) ?? {};
    out.push({
      name,
      path,
      step,
      createdAt: str(manifest.created_at),
      best: ref.best === true,
      evalLoss: num(ref.evalLoss),
    });
  }
  return out.sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
}
