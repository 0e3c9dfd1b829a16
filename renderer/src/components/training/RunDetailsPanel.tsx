/**
 * What the selected training run ran with and what it said: its config as the TOML it ran with (defaults
 * filled in), the same values as a searchable hyperparameter table with where it came from, and the tails
 * of its log (train.log) and metrics.jsonl. Re-read while the run trains.
 */
import { useEffect, useState } from 'react';
import type { TrainingRunDetails } from '../../../../electron/domain/training-view';
import { getLabApi } from '../../lab/api';

type Tab = 'config' | 'hyperparameters' | 'log';
const TABS: { id: Tab; label: string }[] = [
  { id: 'config', label: 'Config' },
  { id: 'hyperparameters', label: 'Hyperparameters' },
  { id: 'log', label: 'Log' },
];
/** How often a training run's details are re-read (its log grows). */
const LIVE_REFRESH_MS = 3_000;

export function RunDetailsPanel({ runId, live }: { runId: string; live: boolean }) {
  const [tab, setTab] = useState<Tab>('config');
  // The filter is the panel's: it stays while another tab is shown.
  const [filter, setFilter] = useState('');
  const { details, error } = useTrainingRunDetails(runId, live);
  return (
    <section className="run-details" data-testid="run-details" data-run={runId}>
      <DetailsTabBar selected={tab} logLines={details?.logLines} onTab={setTab} />
      {error && <div className="error">{error}</div>}
      {details && tab === 'config' && <ConfigTab details={details} />}
      {details && tab === 'hyperparameters' && (
        <HyperparametersTab details={details} filter={filter} onFilter={setFilter} />
      )}
      {details && tab === 'log' && <LogTab details={details} />}
    </section>
  );
}

/** The run's details, read now and every LIVE_REFRESH_MS while it trains; the last read's error, if it failed. */
function useTrainingRunDetails(runId: string, live: boolean) {
  const [details, setDetails] = useState<TrainingRunDetails | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stale = false;
    setDetails(null);
    const read = () =>
      getLabApi()
        .methods['training.details']({ runId })
        .then(
          (d) => !stale && (setDetails(d), setError(null)),
          (e: Error) => !stale && setError(e.message),
        );
    void read();
    const timer = live ? setInterval(() => void read(), LIVE_REFRESH_MS) : null;
    return () => {
      stale = true;
      if (timer) clearInterval(timer);
    };
  }, [runId, live]);
  return { details, error };
}

/** The hyperparameters whose key and value hold every word of the filter (any case). */
function filterHyperparameters(
  rows: TrainingRunDetails['hyperparameters'],
  filter: string,
): TrainingRunDetails['hyperparameters'] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  return rows.filter((h) => words.every((w) => `${h.key} ${h.value}`.toLowerCase().includes(w)));
}

function DetailsTabBar({
  selected,
  logLines,
  onTab,
}: {
  selected: Tab;
  /** The log's length, shown on its tab once read. */
  logLines: number | undefined;
  onTab: (tab: Tab) => void;
}) {
  return (
    <div className="tab-bar" role="tablist">
      {TABS.map((t) => (
        <button
          key={t.id}
          type="button"
          role="tab"
          aria-selected={selected === t.id}
          className={selected === t.id ? 'active' : ''}
          onClick={() => onTab(t.id)}
          data-testid={`details-tab-${t.id}`}
        >
          {t.label}
          {t.id === 'log' && logLines ? ` (${logLines})` : ''}
        </button>
      ))}
    </div>
  );
}

/** The config as the TOML the run ran with, defaults filled in. */
function ConfigTab({ details }: { details: TrainingRunDetails }) {
  return (
    <div data-testid="details-config">
      <p className="muted small">
        {details.configSource ? `started from ${details.configSource}; ` : ''}the validated config of run.json, defaults
        filled in: <code>t1lab train {details.stage} --config FILE</code> takes it as is.
      </p>
      <pre className="details-text" data-testid="run-config-toml">
        {details.configToml}
      </pre>
    </div>
  );
}

/** The config's values as a table, filtered by words, and where the run came from (provenance). */
function HyperparametersTab({
  details,
  filter,
  onFilter,
}: {
  details: TrainingRunDetails;
  filter: string;
  onFilter: (filter: string) => void;
}) {
  return (
    <div data-testid="details-hyperparameters">
      <input
        type="search"
        placeholder="filter: lr, ppo, clip…"
        aria-label="filter hyperparameters"
        value={filter}
        onChange={(e) => onFilter(e.target.value)}
        data-testid="hyperparameter-filter"
      />
      <table className="grid hyperparameters" data-testid="hyperparameters">
        <tbody>
          {filterHyperparameters(details.hyperparameters, filter).map((h) => (
            <tr key={h.key} data-testid="hyperparameter" data-key={h.key}>
              <td className="metric-name">{h.key}</td>
              <td>{h.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Provenance</h3>
      <table className="grid hyperparameters" data-testid="provenance">
        <tbody>
          {details.provenance.map((p) => (
            <tr key={p.key}>
              <td>{p.key}</td>
              <td>{p.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The run's message, the tail of train.log and of metrics.jsonl. */
function LogTab({ details }: { details: TrainingRunDetails }) {
  return (
    <div data-testid="details-log">
      {details.message && <div className="error">{details.message}</div>}
      <h3>
        train.log
        {details.logLines > details.log.length ? ` (last ${details.log.length} of ${details.logLines} lines)` : ''}
      </h3>
      {details.log.length ? (
        <pre className="details-text" data-testid="run-log">
          {details.log.join('\n')}
        </pre>
      ) : (
        <p className="muted">The run has logged nothing (or was written before runs kept train.log).</p>
      )}
      <h3>metrics.jsonl (last {details.metricsTail.length} rows)</h3>
      <pre className="details-text" data-testid="metrics-tail">
        {details.metricsTail.join('\n')}
      </pre>
    </div>
  );
}
