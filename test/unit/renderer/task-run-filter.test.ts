/** The Tasks page's pass-rate filter: which runs a policy kind, a model and a suite keep; the choices offered. */
import { describe, expect, test } from 'vitest';
import { matchesTaskRunFilter, policyKind } from '../../../electron/domain/runs';
import { DEFAULT_RUN_FILTER, runFacets } from '../../../renderer/src/components/tasks/task-run-filter';

const oracle = { policy: 'oracle', suite: '/s/one' };
const onnx = { policy: 'onnx:/models/a', suite: '/s/one' };
const openai = { policy: 'openai:gpt', suite: '/s/two' };

describe('task run filter', () => {
  test('a policy kind is the spec’s scheme, or the spec', () => {
    expect([oracle, onnx, openai].map((r) => policyKind(r.policy))).toEqual(['oracle', 'onnx', 'openai']);
  });
  test('the default leaves the oracle out; an empty filter keeps every run', () => {
    expect([oracle, onnx, openai].filter((r) => matchesTaskRunFilter(r, DEFAULT_RUN_FILTER))).toEqual([onnx, openai]);
    expect([oracle, onnx, openai].filter((r) => matchesTaskRunFilter(r, {}))).toHaveLength(3);
  });
  test('kind, model and suite each narrow, together all must hold', () => {
    expect([oracle, onnx, openai].filter((r) => matchesTaskRunFilter(r, { policy: 'oracle' }))).toEqual([oracle]);
    expect([oracle, onnx, openai].filter((r) => matchesTaskRunFilter(r, { model: 'onnx:/models/a' }))).toEqual([onnx]);
    expect(
      [oracle, onnx, openai].filter((r) => matchesTaskRunFilter(r, { suite: '/s/one', policy: '!oracle' })),
    ).toEqual([onnx]);
  });
  test('the choices: kinds, whole specs and suites, each once, sorted', () => {
    expect(runFacets([onnx, oracle, onnx, openai])).toEqual({
      policies: ['onnx', 'openai', 'oracle'],
      models: ['onnx:/models/a', 'openai:gpt', 'oracle'],
      suites: ['/s/one', '/s/two'],
    });
  });
});
