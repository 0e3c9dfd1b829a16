/** A task's files (task.toml, tests, environment files, the solution) and a viewer for the one picked. */
import { useEffect, useState } from 'react';
import type { TaskDetail } from '../../../../electron/domain/tasks';
import { getLabApi } from '../../lab/api';
import { userError } from '../../lab/errors';

interface Opened {
  path: string;
  text: string | null;
  bytes: number;
  truncated: boolean;
}

function size(bytes: number): string {
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} B`;
}

export function TaskFiles({ detail }: { detail: TaskDetail }) {
  const [opened, setOpened] = useState<Opened | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setOpened(null);
    setError(null);
  }, [detail.source, detail.id]);
  const open = (path: string) => {
    setError(null);
    getLabApi()
      .methods['tasks.file']({ source: detail.source, id: detail.id, path })
      .then(setOpened, (e: unknown) => setError(userError(e).message));
  };
  return (
    <div className="task-files" data-testid="task-files">
      <ul className="files">
        {detail.files.map((f) => (
          <li key={f.path}>
            <button
              type="button"
              className={opened?.path === f.path ? 'link selected' : 'link'}
              onClick={() => open(f.path)}
              data-path={f.path}
            >
              {f.path}
            </button>{' '}
            <span className="muted small">{size(f.bytes)}</span>
          </li>
        ))}
      </ul>
      {error && <div className="error">{error}</div>}
      {opened && (
        <div className="file-viewer" data-testid="file-viewer" data-path={opened.path}>
          <div className="toolbar">
            <strong>{opened.path}</strong>
            <span className="muted small">{size(opened.bytes)}</span>
            <button type="button" className="secondary" onClick={() => setOpened(null)}>
              Close
            </button>
          </div>
          {opened.text === null ? (
            <p className="muted">A binary file ({size(opened.bytes)}).</p>
          ) : (
            <pre className="file-text">{opened.text}</pre>
          )}
          {opened.truncated && <p className="muted small">Only the first 512 KiB are shown.</p>}
        </div>
      )}
    </div>
  );
}
