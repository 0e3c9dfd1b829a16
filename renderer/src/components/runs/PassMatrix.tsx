/** Tasks (rows) by attempts (columns): each cell one episode, green resolved, red not; click to open it. */
import type { EpisodeRecord } from '../../../../electron/domain/runs';

export function PassMatrix({
  episodes,
  attempts,
  onOpen,
}: {
  episodes: EpisodeRecord[];
  attempts: number;
  onOpen: (key: string) => void;
}) {
  const tasks = [...new Set(episodes.map((e) => e.taskId))].sort();
  const byKey = new Map(episodes.map((e) => [`${e.taskId}@${e.attempt}`, e]));
  return (
    <table className="pass-matrix" data-testid="pass-matrix">
      <thead>
        <tr>
          <th>task</th>
          {Array.from({ length: attempts }, (_, a) => (
            <th key={a}>#{a}</th>
          ))}
          <th>resolved</th>
        </tr>
      </thead>
      <tbody>
        {tasks.map((task) => {
          const cells = Array.from({ length: attempts }, (_, a) => byKey.get(`${task}@${a}`));
          const done = cells.filter((c) => c);
          return (
            <tr key={task}>
              <td>{task}</td>
              {cells.map((e, a) => (
                <td key={a}>
                  {e ? (
                    <button
                      type="button"
                      className={e.resolved ? 'cell pass' : 'cell fail'}
                      title={`${task} attempt ${a}: ${e.resolved ? 'resolved' : 'not resolved'} · ${e.turns} turns · ${e.stopReason}`}
                      aria-label={`${task} attempt ${a}: ${e.resolved ? 'resolved' : 'not resolved'}`}
                      data-key={e.key}
                      onClick={() => onOpen(e.key)}
                    >
                      {e.resolved ? '✓' : '✗'}
                    </button>
                  ) : (
                    <span className="cell pending" title="not run yet">
                      ·
                    </span>
                  )}
                </td>
              ))}
              <td className="muted">
                {done.filter((e) => e!.resolved).length}/{done.length}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
