import { useEffect } from 'react';
import { KeyValue } from '../components/KeyValue';
import { useSystem } from '../stores/system';
import { Prose } from '../components/common/Prose';
import type { EngineHostReport } from '../../../electron/domain/system';

const REFRESH_MS = 15_000;

function bytes(n: number): string {
  return `${(n / 1024 ** 3).toFixed(1)} GiB`;
}

function Status({ ok, children }: { ok: boolean; children: React.ReactNode }) {
  return <span className={ok ? 'ok' : 'warn'}>{children}</span>;
}

/** The engine hosts of `t1lab hosts` (container episodes run there with `eval --hosts`), as `hosts check` reports them. */
function EngineHosts({ hosts, error }: { hosts: EngineHostReport[] | null; error: string | null }) {
  return (
    <>
      <h2>Engine hosts</h2>
      {error && (
        <div className="error" role="alert">
          {error}
        </div>
      )}
      {hosts === null ? (
        !error && <p className="muted">Asking the hosts…</p>
      ) : hosts.length === 0 ? (
        <p className="muted">
          No engine hosts. Add one with <code>t1lab hosts add NAME URL</code>.
        </p>
      ) : (
        <table className="grid" data-testid="engine-hosts">
          <thead>
            <tr>
              <th>name</th>
              <th>url</th>
              <th>engine</th>
              <th>rootless</th>
              <th>cores</th>
              <th>memory</th>
              <th>slots</th>
              <th>lab containers</th>
              <th>task images</th>
            </tr>
          </thead>
          <tbody>
            {hosts.map((h) => (
              <tr key={h.name}>
                <td>{h.name}</td>
                <td>{h.url}</td>
                <td>
                  {h.reachable ? (
                    <Status ok>{`${h.engine} ${h.version}`}</Status>
                  ) : (
                    <Status ok={false}>{`unreachable: ${h.error ?? ''}`}</Status>
                  )}
                </td>
                <td>{h.rootless === null ? '—' : h.rootless ? 'yes' : 'no'}</td>
                <td>{h.cores ?? '—'}</td>
                <td>{h.memoryBytes === null ? '—' : bytes(h.memoryBytes)}</td>
                <td>{h.slots}</td>
                <td>{h.labContainers ? `${h.labContainers.running} running, ${h.labContainers.total} in all` : '—'}</td>
                <td>{h.taskImages.length}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

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
      {report && (
        <>
          <KeyValue
            rows={[
              ['node', report.node],
              ['platform', report.platform],
              [
                'electron',
                <Status
                  ok={report.electron.binary}
                >{`${report.electron.version ?? 'not installed'} (binary ${report.electron.binary ? 'present' : 'missing'})`}</Status>,
              ],
              [
                'sandbox',
                <Status
                  ok={report.sandbox.ok}
                >{`${report.sandbox.backend} ${report.sandbox.version ?? ''} — ${report.sandbox.ok ? 'ok' : 'unusable'}`}</Status>,
              ],
              ['onnxruntime', report.onnxruntime.version ?? 'not installed'],
              ...report.onnxruntime.providers.map((p): [string, React.ReactNode] => [
                `provider ${p.name}`,
                <Status ok={p.available}>
                  {p.available ? (
                    'available'
                  ) : (
                    <>
                      unavailable — <Prose text={p.reason ?? ''} />
                    </>
                  )}
                </Status>,
              ]),
              ['cpu cores', String(report.cpu.cores)],
              ['cpu model', report.cpu.model],
              ['memory', bytes(report.memoryBytes)],
              [
                'gpus',
                report.gpus.length ? report.gpus.map((g) => `${g.name} (${bytes(g.memoryBytes)})`).join(', ') : 'none',
              ],
              ['data dir', report.dataDir],
            ]}
          />
          {report.missing.length > 0 && (
            <div className="missing">
              <h2>Optional parts missing</h2>
              <ul>
                {report.missing.map((m) => (
                  <li key={m.part}>
                    <strong>{m.part}</strong>: <Prose text={m.hint} />
                  </li>
                ))}
              </ul>
            </div>
          )}
        </>
      )}
      <EngineHosts hosts={hosts} error={hostsError} />
      <h2>Workers</h2>
      {workers.length === 0 ? (
        <p className="muted">No worker processes yet.</p>
      ) : (
        <table className="grid" data-testid="workers">
          <thead>
            <tr>
              <th>name</th>
              <th>state</th>
              <th>pid</th>
              <th>restarts</th>
              <th>last exit</th>
            </tr>
          </thead>
          <tbody>
            {workers.map((w) => (
              <tr key={w.name}>
                <td>{w.name}</td>
                <td>{w.state}</td>
                <td>{w.pid ?? '—'}</td>
                <td>{w.restarts}</td>
                <td>{w.lastExit ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
