/**
 * The compare view's task table for a baseline A and any number of other runs: one row per task with each
 * run's outcome and each run's change against A, the rows with the largest changes first (resolved rate,
 * then reward), and a summary per pair.
 */
import type { EpisodeRecord } from '../../../../../electron/domain/runs';
import { diffRuns, type TaskChange, type TaskDiff, type TaskOutcome } from './task-diff';

export interface CompareRow {
  taskId: string;
  category: string;
  /** One per run, A first: null where the run does not hold the task. */
  outcomes: (TaskOutcome | null)[];
  /** One per run after A: that run against A. */
  changes: TaskDiff[];
}

const largest = (xs: (number | null)[]) => Math.max(0, ...xs.map((x) => Math.abs(x ?? 0)));

export function compareRows(baseline: EpisodeRecord[], others: EpisodeRecord[][]): CompareRow[] {
  const diffs = others.map((o) => diffRuns(baseline, o));
  const ids = [...new Set(diffs.flatMap((d) => d.map((x) => x.taskId)))];
  const rows = ids.map((taskId) => {
    const changes = diffs.map((d) => d.find((x) => x.taskId === taskId) ?? absentFromPair(taskId));
    const known = changes.find((c) => c.a || c.b)!;
    return {
      taskId,
      category: known.category,
      outcomes: [changes.find((c) => c.a)?.a ?? null, ...changes.map((c) => c.b)],
      changes,
    };
  });
  const resolvedMove = (r: CompareRow) => largest(r.changes.map((c) => c.delta));
  const rewardMove = (r: CompareRow) => largest(r.changes.map((c) => c.rewardDelta));
  return rows.sort(
    (x, y) => resolvedMove(y) - resolvedMove(x) || rewardMove(y) - rewardMove(x) || x.taskId.localeCompare(y.taskId),
  );
}

/** A task only another run (not A) holds: absent from both sides of this pair. */
function absentFromPair(taskId: string): TaskDiff {
  return { taskId, category: '', difficulty: '', a: null, b: null, delta: null, rewardDelta: null, change: 'same' };
}

export type PairCounts = Record<TaskChange, number>;

export function pairCounts(changes: readonly TaskDiff[]): PairCounts {
  const counts: PairCounts = {
    gained: 0,
    lost: 0,
    'reward-up': 0,
    'reward-down': 0,
    same: 0,
    'only-a': 0,
    'only-b': 0,
  };
  for (const c of changes) if (c.a || c.b) counts[c.change]++;
  return counts;
}

/** "C vs A: gains 1 task(s), loses 0; reward up on 2, down on 0; 5 unchanged; 0 only in A, 0 only in C." */
export function pairSummary(changes: readonly TaskDiff[], letter: string): string {
  const n = pairCounts(changes);
  return `${letter} vs A: gains ${n.gained} task(s), loses ${n.lost}; reward up on ${n['reward-up']}, down on ${n['reward-down']}; ${n.same} unchanged; ${n['only-a']} only in A, ${n['only-b']} only in ${letter}.`;
}
