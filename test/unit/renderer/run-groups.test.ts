/** The runs table's grouping: by stage, tag (a run under each of its tags), training run; valueless last. */
import { describe, expect, test } from 'vitest';
import type { RunListing } from '../../../electron/domain/runs';
import { groupRuns } from '../../../renderer/src/components/runs/run-groups';

function run(id: string, o: Partial<RunListing> = {}): RunListing {
  return {
    id,
    dir: `/r/${id}`,
    kind: 'eval',
    suite: '/s/suite-a',
    policy: 'oracle',
    createdAt: '2026-12-01T00:00:00Z',
    total: 4,
    done: 4,
    resolvedRate: 0.5,
    state: 'complete',
    name: null,
    title: id,
    tags: [],
    notes: '',
    meanReward: null,
    meanFraction: null,
    meanTurns: null,
    tokens: 0,
    durationMs: null,
    attempts: 1,
    seed: 1,
    maxTurns: 8,
    temperature: null,
    lineage: null,
    ...o,
  } as RunListing;
}

const runs = [
  run('a', { tags: ['x', 'y'], resolvedRate: 1, lineage: { trainingRun: 't1', stage: 'ppo', step: 3 } }),
  run('b', { tags: ['y'], resolvedRate: 0, lineage: { trainingRun: 't2', stage: 'sft', step: 5 } }),
  run('c', { resolvedRate: null }),
  run('d', { lineage: { trainingRun: 't1', stage: 'ppo', step: 6 } }),
];
const shape = (by: Parameters<typeof groupRuns>[1]) =>
  groupRuns(runs, by, (r) => r.state).map((g) => [g.label, g.runs.map((r) => r.id).join(''), g.meanResolved]);

describe('runs grouping', () => {
  test('by stage, in order of first appearance, non-checkpoints last, mean resolved of runs that have one', () => {
    expect(shape('stage')).toEqual([
      ['ppo', 'ad', 0.75],
      ['sft', 'b', 0],
      ['not a checkpoint', 'c', null],
    ]);
  });
  test('by tag: a run under each of its tags; untagged last', () => {
    expect(shape('tag')).toEqual([
      ['x', 'a', 1],
      ['y', 'ab', 0.5],
      ['untagged', 'cd', 0.5],
    ]);
  });
  test('by training run and by suite', () => {
    expect(shape('training').map((g) => g[0])).toEqual(['t1', 't2', 'not a checkpoint']);
    expect(shape('suite')).toEqual([['suite-a', 'abcd', 0.5]]);
  });
});
