/**
 * The report form's draft: read back from storage field by field, compared with the saved report it edits,
 * and the training runs it charts (the chosen ones whose series were read, named as the list names them).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { REPORT_SCHEMA, type SavedReport } from '../../../electron/domain/reports';
import type { SeriesPoints } from '../../../electron/domain/training-metrics';
import type { TrainingRunSummary } from '../../../electron/domain/training-view';
import {
  changedSinceSaved,
  draftOf,
  loadDraft,
  parseMetrics,
  reportContent,
  toggleTrainingRun,
} from '../../../renderer/src/components/runs/report/report-draft';
import { chartedTrainingRuns } from '../../../renderer/src/components/runs/report/charted-training-runs';

const stored = new Map<string, string>();
const globals = globalThis as { localStorage?: unknown };

function withStorage(): void {
  globals.localStorage = {
    getItem: (k: string) => stored.get(k) ?? null,
    setItem: (k: string, v: string) => stored.set(k, v),
  };
}

afterEach(() => {
  stored.clear();
  delete globals.localStorage;
});

const SAVED: SavedReport = {
  schema: REPORT_SCHEMA,
  id: 'seeds',
  name: 'Seeds',
  createdAt: '2026-12-01T00:00:00Z',
  updatedAt: '2026-12-01T00:00:00Z',
  title: 'Seeds',
  notes: '',
  evalRuns: ['eval-a'],
  trainingRuns: ['ppo-1'],
  metrics: ['reward_dense'],
  poolSeeds: false,
  columns: ['config.seed'],
};

describe('loadDraft', () => {
  test('nothing stored, or not JSON: the default draft', () => {
    expect(loadDraft()).toEqual({
      title: 'Evaluation report',
      notes: '',
      trainingIds: [],
      metrics: 'reward_dense, resolved',
      poolSeeds: false,
    });
    withStorage();
    stored.set('t1lab.report-draft', '{not json');
    expect(loadDraft().title).toBe('Evaluation report');
  });

  test('a stored field of the wrong type takes its default; the others are kept', () => {
    withStorage();
    stored.set(
      't1lab.report-draft',
      JSON.stringify({ title: 3, notes: 'kept', trainingIds: ['a', 1, 'b'], metrics: 'loss', poolSeeds: 'yes' }),
    );
    expect(loadDraft()).toEqual({
      title: 'Evaluation report',
      notes: 'kept',
      trainingIds: ['a', 'b'],
      metrics: 'loss',
      poolSeeds: false,
    });
  });
});

describe('the draft and its saved report', () => {
  test('a saved report opened and not edited is unchanged; an edit or another checked run changes it', () => {
    const draft = draftOf(SAVED);
    const metrics = parseMetrics(draft.metrics);
    expect(changedSinceSaved(reportContent(draft, ['eval-a'], metrics, []), SAVED)).toBe(false);
    // The columns follow the runs table: not a change of the report.
    expect(changedSinceSaved(reportContent(draft, ['eval-a'], metrics, ['other']), SAVED)).toBe(false);
    expect(changedSinceSaved(reportContent({ ...draft, notes: 'x' }, ['eval-a'], metrics, []), SAVED)).toBe(true);
    expect(changedSinceSaved(reportContent(draft, ['eval-a', 'eval-b'], metrics, []), SAVED)).toBe(true);
  });

  test('metrics typed with commas or spaces, each once; a training run toggled in and out', () => {
    expect(parseMetrics(' reward_dense, resolved  reward_dense,')).toEqual(['reward_dense', 'resolved']);
    expect(toggleTrainingRun(['a'], 'b')).toEqual(['a', 'b']);
    expect(toggleTrainingRun(['a', 'b'], 'a')).toEqual(['b']);
  });
});

describe('chartedTrainingRuns', () => {
  test('the chosen runs whose series were read, in the order chosen, by name (else id), with their settings key', () => {
    const listed = [
      { id: 'ppo-1', name: 'first', settingsKey: 'k' },
      { id: 'ppo-2', name: null },
    ] as TrainingRunSummary[];
    const loss: SeriesPoints = { step: [1], wall: [0], tokens: [0], raw: [0.5], ema: [0.5] };
    const series = { 'ppo-2': { loss }, 'ppo-1': { loss } };
    expect(chartedTrainingRuns(['ppo-2', 'ppo-3', 'ppo-1'], series, listed)).toEqual([
      { id: 'ppo-2', label: 'ppo-2', series: { loss } },
      { id: 'ppo-1', label: 'first', settingsKey: 'k', series: { loss } },
    ]);
  });
});
