/**
 * A training run's state from its files (`t1lab train status`, `training.list`): run.json, the last row of
 * metrics.jsonl, the checkpoints on disk, and status.json (the state the running process last wrote, with
 * its pid: a run whose process is gone without finishing is 'incomplete', resumable).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from '../../../native/util/process-alive';
import { TrainingState, type TrainingRunListing } from '../../domain/training';
import { writeFileAtomic } from '../runs/store';
import { readMetrics, readTrainingManifest, TRAINING_FILES, trainingRunsDir } from './run-folder';

interface StatusFile {
  state: TrainingState;
  pid: number;
  step: number;
  updatedAt: string;
  message: string | null;
}

export function writeStatusFile(runDir: string, s: Omit<StatusFile, 'pid' | 'updatedAt'>): void {
  writeFileAtomic(
    join(runDir, TRAINING_FILES.status),
    JSON.stringify({ ...s, pid: process.pid, updatedAt: new Date().toISOString() }) + '\n',
  );
}

function readStatusFile(runDir: string): StatusFile | null {
  try {
    const raw = JSON.parse(readFileSync(join(runDir, TRAINING_FILES.status), 'utf8')) as StatusFile;
    return TrainingState.safeParse(raw.state).success ? raw : null;
  } catch {
    return null;
  }
}

export function trainingStatus(runDir: string): TrainingRunListing & { message: string | null } {
  const manifest = readTrainingManifest(runDir);
  const rows = readMetrics(runDir);
  const last = rows.at(-1);
  const lastEval = [...rows].reverse().find((r) => r.eval_loss !== undefined);
  const totalSteps = Number((manifest.config.train as { steps?: number } | undefined)?.steps ?? 0);
  const checkpoints = manifest.checkpoints.filter((c) => existsSync(c.dir));
  const file = readStatusFile(runDir);
  let state: TrainingRunListing['state'] = file?.state ?? 'incomplete';
  if (
    (state === 'running' || state === 'paused' || state === 'starting' || state === 'stopping') &&
    file &&
    file.pid !== process.pid &&
    !processAlive(file.pid)
  )
    state = 'incomplete';
  return {
    runId: manifest.id,
    runDir,
    stage: manifest.stage,
    createdAt: manifest.createdAt,
    state,
    step: last?.step ?? 0,
    totalSteps,
    tokens: last?.tokens ?? 0,
    loss: last?.loss ?? null,
    evalLoss: lastEval?.eval_loss ?? null,
    lastCheckpoint: checkpoints.at(-1) ?? null,
    bestCheckpoint: checkpoints.find((c) => c.best) ?? null,
    message: file?.message ?? null,
  };
}

/** Every training run in the data folder, newest first; unreadable folders are skipped. */
export function listTrainingRuns(dataDir: string): TrainingRunListing[] {
  const root = trainingRunsDir(dataDir);
  if (!existsSync(root)) return [];
  const out: TrainingRunListing[] = [];
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    if (!existsSync(join(dir, TRAINING_FILES.manifest))) continue;
    try {
      const { message: _message, ...listing } = trainingStatus(dir);
      out.push(listing);
    } catch {
      // a half-written or foreign folder: not a run
    }
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
