/** The host's worker processes: their state, pid, restarts and how the last one exited. */
import type { WorkerStatus } from '../../../../electron/domain/system';

export function WorkersTable({ workers }: { workers: readonly WorkerStatus[] }) {
  return workers.length === 0 ? (
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
  );
}
