/** A run's settings and results as flat fields: what the runs table's columns of your choosing show and filter. */
import { describe, expect, test } from 'vitest';
import { meetsFieldCondition, parseFieldCondition, runFields } from '../../../electron/domain/run-fields';
import { matchesRunFilter } from '../../../renderer/src/components/runs/run-filter';
import type { RunListing } from '../../../electron/domain/runs';

const fields = runFields(
  {
    kind: 'eval',
    seed: 2,
    policySettings: { temperature: 0.7 },
    tasks: [{ id: 'a' }, { id: 'b' }],
    containers: { image: 'x' },
    only: ['a'],
  },
  { resolvedRate: 0.5, meanTurns: null },
);

describe('run fields', () => {
  test('config flattened to dotted keys, the task list counted, containers left out, results under summary', () => {
    expect(fields).toEqual({
      'config.kind': 'eval',
      'config.seed': 2,
      'config.policySettings.temperature': 0.7,
      'config.tasks': 2,
      'config.only': '["a"]',
      'summary.resolvedRate': 0.5,
      'summary.meanTurns': null,
    });
  });
  test('conditions: KEY=VALUE, KEY>N, KEY<N on dotted keys, case-insensitive keys', () => {
    expect(parseFieldCondition('config.seed=2')).toEqual({ key: 'config.seed', op: '=', value: '2' });
    expect(parseFieldCondition('tag:x')).toBeNull();
    expect(parseFieldCondition('seed=2')).toBeNull();
    expect(meetsFieldCondition(fields, { key: 'config.policysettings.temperature', op: '>', value: '0.5' })).toBe(true);
    expect(meetsFieldCondition(fields, { key: 'summary.resolvedRate', op: '<', value: '0.5' })).toBe(false);
    expect(meetsFieldCondition(fields, { key: 'config.kind', op: '=', value: 'EVAL' })).toBe(true);
    expect(meetsFieldCondition(fields, { key: 'summary.meanTurns', op: '>', value: '0' })).toBe(false);
    expect(meetsFieldCondition(fields, { key: 'config.nope', op: '=', value: 'x' })).toBe(false);
  });
  test('the runs filter takes them beside its words', () => {
    const run = {
      title: 'nano on one',
      id: 'r1',
      policy: 'onnx:/m',
      suite: '/s/one',
      tags: [],
      notes: '',
      lineage: null,
      fields,
    } as unknown as RunListing;
    expect(matchesRunFilter(run, 'nano config.seed=2', 'complete')).toBe(true);
    expect(matchesRunFilter(run, 'config.seed>2', 'complete')).toBe(false);
  });
});
