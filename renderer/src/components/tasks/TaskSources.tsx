/**
 * The library's sources (examples, committed suites, $T1LAB_HOME/tasks, added folders and packs, the suites
 * of runs) with their task counts, and "add a source": a folder or pack path the lab keeps in its settings.
 */
import { useState } from 'react';
import type { TaskListing } from '../../../../electron/domain/tasks';
import { useTasks } from '../../stores/tasks';
import { FieldError } from '../common/FieldError';

const KIND_LABEL: Record<TaskListing['sources'][number]['kind'], string> = {
  examples: 'built-in examples',
  suite: 'committed suite',
  user: '$T1LAB_HOME/tasks',
  added: 'added',
  run: 'suite of a run',
};

export function TaskSources({ listing }: { listing: TaskListing }) {
  const { addSource, removeSource, sourceError, loading, setFilter } = useTasks();
  const [path, setPath] = useState('');
  const counts = new Map<string, number>();
  for (const t of listing.tasks) counts.set(t.source, (counts.get(t.source) ?? 0) + 1);
  const add = async () => {
    if (await addSource(path)) setPath('');
  };
  return (
    <details className="task-sources" data-testid="task-sources">
      <summary>{`${listing.sources.length} sources · add a source`}</summary>
      <table className="grid task-sources-table">
        <thead>
          <tr>
            <th>source</th>
            <th>kind</th>
            <th>tasks</th>
            <th>path</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {listing.sources.map((s) => (
            <tr key={s.label} data-source={s.label}>
              <td>
                <button
                  type="button"
                  className="link"
                  onClick={() => setFilter('source', s.label)}
                  title="show only this source"
                >
                  {s.label}
                </button>
              </td>
              <td>{KIND_LABEL[s.kind]}</td>
              <td>{counts.get(s.label) ?? 0}</td>
              <td className="cut path" title={s.path}>
                {s.path}
              </td>
              <td>
                {s.kind === 'added' && (
                  <button
                    type="button"
                    className="secondary"
                    onClick={() => void removeSource(s.path)}
                    aria-label={`remove ${s.label}`}
                  >
                    Remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <input
          aria-label="folder or pack to add"
          placeholder="/path/to/tasks or /path/to/pack.jsonl"
          value={path}
          onChange={(e) => setPath(e.target.value)}
          className="source-path"
        />
        <button type="submit" disabled={loading || !path.trim()} data-testid="add-source">
          Add a source
        </button>
      </form>
      {sourceError && (
        <FieldError
          message={sourceError}
          onDismiss={() => useTasks.setState({ sourceError: null })}
          testId="source-error"
        />
      )}
    </details>
  );
}
