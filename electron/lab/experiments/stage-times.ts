/**
 * Wall time per stage of a resumable pipeline, summed over every invocation that ran it (`stage-times.json`
 * in the pipeline's folder). A reproduction that was stopped and resumed twice still reports how long its
 * stages took in all: that sum, not one invocation's clock, is what "the run fits in 3 hours" is about.
 * A stage killed with its pipeline loses the unfinished part of its time (the file is written when a stage
 * process ends, whatever its exit code).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../runs/store';

export interface StageTime {
  stage: string;
  /** Seconds of every invocation of the stage's process, summed. */
  wallSeconds: number;
  /** How many times the stage's process ran (more than 1: resumed). */
  runs: number;
}

export const STAGE_TIMES_FILE = 'stage-times.json';

/** The recorded stage times in the order the stages first ran; a missing file is none, a corrupt one an error naming it. */
export function readStageTimes(dir: string): StageTime[] {
  const file = join(dir, STAGE_TIMES_FILE);
  if (!existsSync(file)) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not JSON (${(error as Error).message}); delete it to start the stage times afresh`, {
      cause: error,
    });
  }
  if (!Array.isArray(raw)) throw new Error(`${file}: expected a list of {stage, wallSeconds, runs}`);
  return raw.map((entry: unknown, i) => {
    const e = entry as Partial<StageTime>;
    if (
      typeof e?.stage !== 'string' ||
      typeof e.wallSeconds !== 'number' ||
      !Number.isFinite(e.wallSeconds) ||
      e.wallSeconds < 0 ||
      typeof e.runs !== 'number'
    ) {
      throw new Error(`${file}: entry ${i} is not {stage, wallSeconds ≥ 0, runs}`);
    }
    return { stage: e.stage, wallSeconds: e.wallSeconds, runs: e.runs };
  });
}

/** Adds one invocation's seconds to a stage (appended at the end the first time it runs). */
export function addStageTime(dir: string, stage: string, seconds: number): StageTime[] {
  const times = readStageTimes(dir);
  const at = times.find((t) => t.stage === stage);
  if (at) {
    at.wallSeconds += seconds;
    at.runs += 1;
  } else {
    times.push({ stage, wallSeconds: seconds, runs: 1 });
  }
  writeFileAtomic(join(dir, STAGE_TIMES_FILE), `${JSON.stringify(times, null, 2)}\n`);
  return times;
}

export const totalWallSeconds = (times: readonly StageTime[]): number =>
  times.reduce((sum, t) => sum + t.wallSeconds, 0);
