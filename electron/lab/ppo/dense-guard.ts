/**
 * Guarding the dense reward: partial credit invites farming the easy assertions. Per step, the pass rate
 * of every (task, assertion) and the dense and binary rewards per category; over the run, an assertion is
 * flagged when its pass rate rose (second half of the steps its task was sampled in vs the first half) by
 * at least `minRise` while its task's binary reward did not rise.
 */
import { DEFAULT_MIN_RISE, type AssertionFlag } from '../../domain/dense-guard';
import type { RolloutEpisode } from './rollout-files';

export type { AssertionFlag };

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Dense/fraction/binary reward per category of one step's kept episodes (metric keys). */
export function rewardsByCategory(episodes: readonly RolloutEpisode[]): Record<string, number> {
  const out: Record<string, number> = {};
  const cats = new Map<string, RolloutEpisode[]>();
  for (const e of episodes) cats.set(e.category, [...(cats.get(e.category) ?? []), e]);
  for (const [cat, es] of cats) {
    const key = cat.replace(/[^A-Za-z0-9_-]/g, '_');
    out[`reward_dense/${key}`] = mean(es.map((e) => e.reward?.dense ?? 0));
    out[`reward_binary/${key}`] = mean(es.map((e) => e.reward?.binary ?? 0));
  }
  return out;
}

/** Pass rate per "task::assertion" over some episodes. */
export function assertionPassRates(episodes: readonly RolloutEpisode[]): Record<string, number> {
  const counts = new Map<string, { pass: number; n: number }>();
  for (const e of episodes) {
    for (const a of e.assertions) {
      const key = `${e.taskId}::${a.name}`;
      const c = counts.get(key) ?? { pass: 0, n: 0 };
      c.n++;
      if (a.passed) c.pass++;
      counts.set(key, c);
    }
  }
  return Object.fromEntries([...counts].map(([k, c]) => [k, c.pass / c.n]));
}

/** Before/after figures of one (task, assertion): the halves of the steps its task was sampled in. */
export interface AssertionSplit {
  taskId: string;
  assertion: string;
  /** Null when the task was sampled in one step only. */
  passRateBefore: number | null;
  passRateAfter: number;
  binaryBefore: number | null;
  binaryAfter: number;
}

/** `history`: per step (in order), its kept episodes. Every (task, assertion), in the order first seen. */
export function assertionSplits(history: readonly (readonly RolloutEpisode[])[]): AssertionSplit[] {
  const byTask = new Map<string, RolloutEpisode[][]>();
  for (const step of history) {
    const tasks = new Map<string, RolloutEpisode[]>();
    for (const e of step) tasks.set(e.taskId, [...(tasks.get(e.taskId) ?? []), e]);
    for (const [t, es] of tasks) byTask.set(t, [...(byTask.get(t) ?? []), es]);
  }
  const out: AssertionSplit[] = [];
  for (const [taskId, steps] of byTask) {
    // One step has no first half: its rates are all "after".
    const half = Math.floor(steps.length / 2);
    const before = steps.slice(0, half).flat();
    const after = steps.slice(half).flat();
    const binaryBefore = before.length ? mean(before.map((e) => e.reward?.binary ?? 0)) : null;
    const binaryAfter = mean(after.map((e) => e.reward?.binary ?? 0));
    const rb = assertionPassRates(before);
    for (const [key, rate] of Object.entries(assertionPassRates(after))) {
      out.push({
        taskId,
        assertion: key.slice(taskId.length + 2),
        passRateBefore: rb[key] ?? null,
        passRateAfter: rate,
        binaryBefore,
        binaryAfter,
      });
    }
  }
  return out;
}

/** Farming: the pass rate rose by at least `minRise` while the task's binary reward did not rise. */
export function isFarmed(s: AssertionSplit, minRise = DEFAULT_MIN_RISE): s is AssertionFlag {
  return (
    s.passRateBefore !== null &&
    s.binaryBefore !== null &&
    s.binaryAfter <= s.binaryBefore &&
    s.passRateAfter - s.passRateBefore >= minRise
  );
}

/** `history`: per step (in order), its kept episodes. */
export function flagFarmedAssertions(
  history: readonly (readonly RolloutEpisode[])[],
  minRise = DEFAULT_MIN_RISE,
): AssertionFlag[] {
  return assertionSplits(history).filter((s) => isFarmed(s, minRise));
}
