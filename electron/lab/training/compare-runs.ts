/**
 * Two evaluation runs side by side (a checkpoint against another, or against its base): per task the
 * share of attempts resolved and the mean reward, per category the difference, and how many shared tasks
 * each resolved more often. The paired test belongs to the statistics issue: `pairedTest` stays null here.
 */
import type { EpisodeRecord } from '../../domain/runs';
import type { RunComparison } from '../../domain/training-view';
import { readRun } from '../runs/library';

interface TaskOutcome {
  category: string;
  resolved: number;
  episodes: number;
  reward: number | null;
}

function byTask(episodes: EpisodeRecord[]): Map<string, TaskOutcome> {
  const acc = new Map<
    string,
    { category: string; resolved: number; episodes: number; reward: number; rewarded: number }
  >();
  for (const e of episodes) {
    const t = acc.get(e.taskId) ?? { category: e.category, resolved: 0, episodes: 0, reward: 0, rewarded: 0 };
    t.episodes++;
    if (e.resolved) t.resolved++;
    if (e.reward) {
      t.reward += e.reward.dense;
      t.rewarded++;
    }
    acc.set(e.taskId, t);
  }
  return new Map(
    [...acc].map(([id, t]) => [
      id,
      {
        category: t.category,
        resolved: t.resolved / t.episodes,
        episodes: t.episodes,
        reward: t.rewarded ? t.reward / t.rewarded : null,
      },
    ]),
  );
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export function compareRuns(aId: string, aDir: string, bId: string, bDir: string): RunComparison {
  const [ra, rb] = [readRun(aDir), readRun(bDir)];
  const [ta, tb] = [byTask(ra.episodes), byTask(rb.episodes)];
  const ids = [...new Set([...ta.keys(), ...tb.keys()])].sort();
  const tasks = ids.map((taskId) => {
    const a = ta.get(taskId) ?? null;
    const b = tb.get(taskId) ?? null;
    return {
      taskId,
      category: (a ?? b)!.category,
      a: a && { resolved: a.resolved, episodes: a.episodes, reward: a.reward },
      b: b && { resolved: b.resolved, episodes: b.episodes, reward: b.reward },
    };
  });
  const shared = tasks.filter((t) => t.a && t.b);
  const categories = [...new Set(shared.map((t) => t.category))].sort();
  const byCategory = categories.map((category) => {
    const ts = shared.filter((t) => t.category === category);
    const a = mean(ts.map((t) => t.a!.resolved));
    const b = mean(ts.map((t) => t.b!.resolved));
    return { category, tasks: ts.length, a, b, diff: b - a };
  });
  const side = (id: string, r: ReturnType<typeof readRun>) => ({
    runId: id,
    policy: r.manifest.config.policy,
    suite: r.manifest.config.suite,
    resolvedRate: r.stats.resolvedRate,
    tasks: r.stats.tasks,
  });
  return {
    a: side(aId, ra),
    b: side(bId, rb),
    tasks,
    byCategory,
    shared: {
      tasks: shared.length,
      aBetter: shared.filter((t) => t.a!.resolved > t.b!.resolved).length,
      bBetter: shared.filter((t) => t.b!.resolved > t.a!.resolved).length,
      same: shared.filter((t) => t.a!.resolved === t.b!.resolved).length,
    },
    pairedTest: null,
  };
}
