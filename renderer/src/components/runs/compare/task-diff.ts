/** Two runs, task by task: each run's resolved rate on the task (over its attempts), and the change. */
import type { EpisodeRecord } from '../../../../../electron/domain/runs';

export interface TaskOutcome {
  resolved: number;
  episodes: number;
  rate: number;
  meanFraction: number | null;
}

export interface TaskDiff {
  taskId: string;
  category: string;
  difficulty: string;
  /** Null when the run does not hold the task (or has not run it yet). */
  a: TaskOutcome | null;
  b: TaskOutcome | null;
  /** b.rate - a.rate when both ran it. */
  delta: number | null;
  change: 'gained' | 'lost' | 'same' | 'only-a' | 'only-b';
}

function outcome(episodes: EpisodeRecord[]): TaskOutcome | null {
  if (!episodes.length) return null;
  const resolved = episodes.filter((e) => e.resolved).length;
  const fractions = episodes.map((e) => e.reward?.fraction).filter((f): f is number => f !== undefined);
  return { resolved, episodes: episodes.length, rate: resolved / episodes.length, meanFraction: fractions.length ? fractions.reduce((x, y) => x + y, 0) / fractions.length : null };
}

export function diffRuns(a: EpisodeRecord[], b: EpisodeRecord[]): TaskDiff[] {
  const ids = [...new Set([...a, ...b].map((e) => e.taskId))].sort();
  return ids.map((taskId) => {
    const ea = a.filter((e) => e.taskId === taskId);
    const eb = b.filter((e) => e.taskId === taskId);
    const any = ea[0] ?? eb[0]!;
    const oa = outcome(ea);
    const ob = outcome(eb);
    const delta = oa && ob ? ob.rate - oa.rate : null;
    const change = !oa ? 'only-b' : !ob ? 'only-a' : delta! > 0 ? 'gained' : delta! < 0 ? 'lost' : 'same';
    return { taskId, category: any.category, difficulty: any.difficulty, a: oa, b: ob, delta, change };
  });
}
