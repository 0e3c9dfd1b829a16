/**
 * The report form's draft: what the form edits (title, notes, the training runs charted, the metrics, pooling),
 * kept in the browser's storage until it is saved under a name, and what it saves (a ReportContent).
 */
import type { ReportContent, SavedReport } from '../../../../../electron/domain/reports';
import { readStored, writeStored } from '../../../lab/stored-list';

/** The metrics a new report charts. */
export const DEFAULT_METRICS = 'reward_dense, resolved';
/** Where the unsaved draft is kept in the browser's storage. */
const DRAFT_KEY = 't1lab.report-draft';

export interface ReportDraft {
  title: string;
  notes: string;
  trainingIds: string[];
  /** The metrics as typed: names separated by commas or spaces (parseMetrics). */
  metrics: string;
  poolSeeds: boolean;
}

const emptyDraft = (): ReportDraft => ({
  title: 'Evaluation report',
  notes: '',
  trainingIds: [],
  metrics: DEFAULT_METRICS,
  poolSeeds: false,
});

/** The stored draft; a field stored with the wrong type (or nothing stored, or not JSON) takes its default. */
export function loadDraft(): ReportDraft {
  const d = emptyDraft();
  try {
    const o = JSON.parse(readStored(DRAFT_KEY) ?? '{}') as Partial<ReportDraft>;
    return {
      title: typeof o.title === 'string' ? o.title : d.title,
      notes: typeof o.notes === 'string' ? o.notes : d.notes,
      trainingIds: Array.isArray(o.trainingIds)
        ? o.trainingIds.filter((x): x is string => typeof x === 'string')
        : d.trainingIds,
      metrics: typeof o.metrics === 'string' ? o.metrics : d.metrics,
      poolSeeds: o.poolSeeds === true,
    };
  } catch {
    return d;
  }
}

export function storeDraft(draft: ReportDraft): void {
  writeStored(DRAFT_KEY, draft);
}

/** A saved report as the form edits it. */
export const draftOf = (r: SavedReport): ReportDraft => ({
  title: r.title,
  notes: r.notes,
  trainingIds: r.trainingRuns,
  metrics: r.metrics.join(', '),
  poolSeeds: r.poolSeeds,
});

/** The metric names typed, in order, each once. */
export const parseMetrics = (text: string) => [...new Set(text.split(/[\s,]+/).filter(Boolean))];

/** What Save writes: the draft, the checked evaluation runs and the runs table's added columns. */
export function reportContent(
  draft: ReportDraft,
  checkedIds: readonly string[],
  metrics: string[],
  columns: string[],
): ReportContent {
  return {
    title: draft.title,
    notes: draft.notes,
    evalRuns: [...checkedIds],
    trainingRuns: draft.trainingIds,
    metrics,
    poolSeeds: draft.poolSeeds,
    columns,
  };
}

/** Whether the form differs from the saved report. The columns are not compared: they follow the runs table. */
export function changedSinceSaved(content: ReportContent, saved: SavedReport): boolean {
  return (
    JSON.stringify({ ...content, columns: [] }) !==
    JSON.stringify({
      title: saved.title,
      notes: saved.notes,
      evalRuns: saved.evalRuns,
      trainingRuns: saved.trainingRuns,
      metrics: saved.metrics,
      poolSeeds: saved.poolSeeds,
      columns: [],
    })
  );
}

/** The training runs charted with `id` added, or taken out if it was there. */
export const toggleTrainingRun = (ids: readonly string[], id: string): string[] =>
  ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id];
