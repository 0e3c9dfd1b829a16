import { describe, expect, test } from 'vitest';
import type { TrainingRunSummary } from '../../../electron/domain/training-view';
import { endedNotice, newlyEnded, RecentlyUsed } from '../../../electron/lab/training/view-handlers';

const run = (
  id: string,
  state: TrainingRunSummary['state'],
  extra: Partial<TrainingRunSummary> = {},
): TrainingRunSummary => ({
  id,
  dir: `/runs/${id}`,
  stage: 'ppo',
  state,
  step: 7,
  totalSteps: null,
  etaS: null,
  lastFigure: null,
  startedAt: null,
  updatedAt: null,
  message: null,
  ...extra,
});

describe('newlyEnded: the runs that went from live to ended since the last look', () => {
  test('live then ended is news once; seen ended first, or ended to ended, is not', () => {
    const states = new Map<string, TrainingRunSummary['state']>();
    expect(newlyEnded(states, [run('a', 'running'), run('b', 'completed')])).toEqual([]);
    expect(
      newlyEnded(states, [run('a', 'failed'), run('b', 'stopped'), run('c', 'completed')]).map((r) => r.id),
    ).toEqual(['a']);
    expect(newlyEnded(states, [run('a', 'failed')])).toEqual([]);
    expect(states.get('c')).toBe('completed');
  });

  test('a paused run that is resumed and then completes is news', () => {
    const states = new Map<string, TrainingRunSummary['state']>([['a', 'paused']]);
    expect(newlyEnded(states, [run('a', 'completed')]).map((r) => r.id)).toEqual(['a']);
  });
});

test('endedNotice names the run, its end, its step of the total and its message', () => {
  expect(endedNotice(run('r1', 'completed', { totalSteps: 10 }))).toEqual({
    title: 'Training finished: r1',
    body: 'ppo, step 7/10',
  });
  expect(endedNotice(run('r2', 'failed', { message: 'out of memory' }))).toEqual({
    title: 'Training failed: r2',
    body: 'ppo, step 7 — out of memory',
  });
});

describe('RecentlyUsed keeps the most recently used values', () => {
  test('opens once per key, drops the least recently used beyond its size; peek neither opens nor reorders', () => {
    const opened: string[] = [];
    const open = (key: string) => {
      opened.push(key);
      return { key };
    };
    const cache = new RecentlyUsed<{ key: string }>(2);
    const a = cache.get('a', open);
    cache.get('b', open);
    expect(cache.get('a', open)).toBe(a); // a is now the most recent
    expect(cache.peek('b')).toEqual({ key: 'b' });
    cache.get('c', open); // drops b, the least recently used
    expect(cache.peek('b')).toBeUndefined();
    expect(cache.peek('a')).toBe(a);
    expect(cache.peek('z')).toBeUndefined();
    expect(opened).toEqual(['a', 'b', 'c']);
  });
});
