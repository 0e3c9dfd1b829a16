/** The trainer's word on the runs it works on: while it reports a run, its state, step and ETA beat the files'. */
import type { TrainingProgress } from '../../../electron/domain/training';
import type { TrainingRunSummary } from '../../../electron/domain/training-view';

/** States in which the trainer's progress is the run's truth. */
const ACTIVE = new Set(['starting', 'running', 'paused', 'stopping']);

/** A listed run with the trainer's state, step, total, ETA and message. */
export function withProgress(run: TrainingRunSummary, p: TrainingProgress): TrainingRunSummary {
  return { ...run, state: p.state, step: p.step, totalSteps: p.totalSteps, etaS: p.etaS, message: p.message };
}

/** The runs as listed from their files, each one the trainer reports as active patched with its progress. */
export function withLiveProgress(
  listed: TrainingRunSummary[],
  live: Record<string, TrainingProgress>,
): TrainingRunSummary[] {
  return listed.map((r) => {
    const p = live[r.id];
    return p && ACTIVE.has(p.state) ? withProgress(r, p) : r;
  });
}
