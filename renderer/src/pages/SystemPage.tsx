import { useEffect } from 'react';
import { useSystem } from '../stores/system';
import { EngineHosts } from '../components/system/EngineHosts';
import { HostReport } from '../components/system/HostReport';
import { WorkersTable } from '../components/system/WorkersTable';

/** How often the page asks the host for its report again. */
const REFRESH_MS = 15_000;

export function SystemPage() {
  const { report, loading, error, workers, hosts, hostsError, refresh, watchWorkers } = useSystem();
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    const unwatch = watchWorkers();
    return () => {
      clearInterval(timer);
      unwatch();
    };
  }, [refresh, watchWorkers]);

  return (
    <section data-testid="page-system">
      <div className="toolbar">
        <button onClick={() => void refresh()} disabled={loading}>
          {loading ? 'Checking…' : 'Refresh'}
        </button>
        {report && <span className="muted">checked {new Date(report.generatedAt).toLocaleTimeString()}</span>}
      </div>
      {error && (
        <div className="error" role="alert">
          {error}
        </div>
      )}
      {!report && !error && <div className="muted">Asking the host…</div>}
      {report && <HostReport report={report} />}
      <EngineHosts hosts={hosts} error={hostsError} />
      <h2>Workers</h2>
      <WorkersTable workers={workers} />
    </section>
  );
}
