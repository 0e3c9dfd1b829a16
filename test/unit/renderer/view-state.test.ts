/** Views that survive a reload: the Training page's address (opened rollout) and the runs table's stored view. */
import { describe, expect, test } from 'vitest';
import { DEFAULT_RUNS_TABLE_VIEW, parseRunsTableView } from '../../../renderer/src/components/runs/runs-table-view';
import { decodeTrainingState, encodeTrainingState } from '../../../renderer/src/components/training/url-state';

describe('Training page address', () => {
  const base = {
    overlays: [],
    xAxis: 'step' as const,
    smoothing: 0.6,
    logScale: {},
    panelFilter: '',
    pinned: [],
    combined: [],
    showConstant: false,
  };
  test('the opened rollout step and rollout travel in the address', () => {
    const text = encodeTrainingState({ ...base, rolloutStep: 40, rolloutKey: 'make-hello-g0' });
    expect(text).toBe('step=40&ep=make-hello-g0');
    expect(decodeTrainingState('RUN', text)).toMatchObject({
      run: 'RUN',
      rolloutStep: 40,
      rolloutKey: 'make-hello-g0',
    });
  });
  test('no step, no rollout; a bad step is ignored with its rollout', () => {
    expect(encodeTrainingState({ ...base, rolloutStep: null, rolloutKey: 'x' })).toBe('');
    expect(decodeTrainingState('RUN', '')).toMatchObject({ rolloutStep: null, rolloutKey: null });
    expect(decodeTrainingState('RUN', 'step=abc&ep=x')).toMatchObject({ rolloutStep: null, rolloutKey: null });
    expect(decodeTrainingState('RUN', 'step=0')).toMatchObject({ rolloutStep: 0, rolloutKey: null });
  });
});

describe('runs table view', () => {
  test('a stored view comes back whole', () => {
    const view = {
      filter: 'tag:baseline',
      columns: 'settings',
      groupBy: 'tag',
      sort: { key: 'resolved', dir: 1 },
      extra: ['config.seed', 'summary.meanTurns'],
    };
    expect(parseRunsTableView(JSON.stringify(view))).toEqual(view);
  });
  test('nothing stored, unreadable JSON or bad fields fall back to the defaults, field by field', () => {
    expect(parseRunsTableView(null)).toEqual(DEFAULT_RUNS_TABLE_VIEW);
    expect(parseRunsTableView('{')).toEqual(DEFAULT_RUNS_TABLE_VIEW);
    expect(
      parseRunsTableView(JSON.stringify({ filter: 3, columns: 'x', groupBy: 'colour', sort: { key: 'run', dir: 2 } })),
    ).toEqual(DEFAULT_RUNS_TABLE_VIEW);
    expect(parseRunsTableView(JSON.stringify({ groupBy: 'state' }))).toEqual({
      ...DEFAULT_RUNS_TABLE_VIEW,
      groupBy: 'state',
    });
  });
});
