/** The report form's training section: which training runs are charted, which metrics, and pooling over seeds. */
import type { TrainingRunSummary } from '../../../../../electron/domain/training-view';
import { DEFAULT_METRICS, toggleTrainingRun, type ReportDraft } from './report-draft';

/** A training run's tooltip: its id, state, step and seed. */
const runTitle = (t: TrainingRunSummary) =>
  `${t.id} · ${t.state} · step ${t.step}${t.seed !== undefined && t.seed !== null ? ` · seed ${t.seed}` : ''}`;

export function ReportTrainingFields({
  runs,
  draft,
  change,
}: {
  runs: readonly TrainingRunSummary[];
  draft: ReportDraft;
  change: (patch: Partial<ReportDraft>) => void;
}) {
  return (
    <fieldset className="report-training" data-testid="report-training">
      <legend>training runs charted</legend>
      {runs.length === 0 && <span className="muted small">no training runs</span>}
      {runs.map((t) => (
        <label key={t.id} title={runTitle(t)}>
          <input
            type="checkbox"
            checked={draft.trainingIds.includes(t.id)}
            onChange={() => change({ trainingIds: toggleTrainingRun(draft.trainingIds, t.id) })}
            aria-label={`report ${t.id}`}
          />{' '}
          {t.name || t.id}
          {t.state === 'running' ? <span className="muted small"> (running)</span> : null}
        </label>
      ))}
      <label>
        metrics{' '}
        <input
          value={draft.metrics}
          onChange={(e) => change({ metrics: e.target.value })}
          placeholder={DEFAULT_METRICS}
          data-testid="report-metrics"
          aria-label="report metrics"
        />
      </label>
      <label title="runs that differ only in seed as one line: their mean over a band from the lowest to the highest run at each step">
        <input
          type="checkbox"
          checked={draft.poolSeeds}
          onChange={(e) => change({ poolSeeds: e.target.checked })}
          data-testid="report-pool-seeds"
        />{' '}
        pool seeds
      </label>
    </fieldset>
  );
}
