import type { EngineHostReport } from '../../../../electron/domain/system';
import { bytes, Status } from './status';

/** The engine hosts of `t1lab hosts` (container episodes run there with `eval --hosts`), as `hosts check` reports them. */
export function EngineHosts({ hosts, error }: { hosts: EngineHostReport[] | null; error: string | null }) {
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
