import { useEffect, useState } from 'react';
import type { ModelSummary } from '../../../electron/domain/models';
import { KeyValue } from '../components/KeyValue';
import { FieldError } from '../components/common/FieldError';
import { Playground } from '../components/models/Playground';
import { onRowKey } from '../components/common/row-keys';
import { useModels } from '../stores/models';

function size(bytes: number): string {
  return bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function millions(n: number | null): string {
  return n === null ? '—' : `${(n / 1e6).toFixed(2)}M`;
}

function CheckpointList({
  checkpoints,
  selected,
  onSelect,
}: {
  checkpoints: ModelSummary[];
  selected: string | null;
  onSelect: (p: string) => void;
}) {
  if (!checkpoints.length)
    return (
      <div className="muted">
        No checkpoints yet. Create one with <code>t1lab model init --preset nano --out DIR</code> and add its folder
        above.
      </div>
    );
  return (
    <table className="grid models-table" data-testid="checkpoints">
      <thead>
        <tr>
          <th>name</th>
          <th>training run</th>
          <th>stage</th>
          <th>step</th>
          <th>format</th>
          <th>parameters</th>
          <th>size</th>
          <th>provider</th>
          <th>status</th>
        </tr>
      </thead>
      <tbody>
        {checkpoints.map((c) => (
          <tr
            key={c.path}
            data-testid="model-row"
            data-path={c.path}
            className={c.path === selected ? 'selected' : ''}
            onClick={() => onSelect(c.path)}
            onKeyDown={onRowKey(() => onSelect(c.path))}
            tabIndex={0}
            style={{ cursor: 'pointer' }}
            title={c.path}
          >
            <td data-key="name">{c.name}</td>
            <td data-key="run" className="cut" title={c.lineage?.trainingRun ?? ''}>
              {c.lineage?.trainingRun ?? '—'}
            </td>
            <td data-key="stage">{c.lineage?.stage ?? '—'}</td>
            <td data-key="step">{c.lineage ? c.lineage.step : '—'}</td>
            <td>{c.format}</td>
            <td>{millions(c.parameters)}</td>
            <td>{size(c.totalBytes)}</td>
            <td>{c.provider ? c.provider.name : <span className="muted">not loaded</span>}</td>
            <td className={c.status === 'ok' ? 'ok' : 'warn'} title={c.error ?? ''}>
              {c.status === 'ok' ? 'ok' : c.error}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CheckpointDetails({ c }: { c: ModelSummary }) {
  return (
    <div data-testid="checkpoint-details">
      <h2>{c.name}</h2>
      <KeyValue
        rows={[
          ['path', c.path],
          ['parameters', `${millions(c.parameters)} (${millions(c.activeParameters)} active per token)`],
          ['tokenizer', c.tokenizerVocab === null ? '—' : `${c.tokenizerVocab} tokens`],
          [
            'provider',
            c.provider
              ? `${c.provider.name}${c.provider.fallbackReason ? ` — ${c.provider.fallbackReason}` : ''}`
              : 'not loaded yet',
          ],
          ...Object.entries(c.config ?? {}).map(([k, v]): [string, string] => [k, String(v)]),
        ]}
      />
      <table className="grid files">
        <thead>
          <tr>
            <th>file</th>
            <th>size</th>
            <th>sha256</th>
          </tr>
        </thead>
        <tbody>
          {c.files.map((f) => (
            <tr key={f.name}>
              <td>{f.name}</td>
              <td>{size(f.bytes)}</td>
              <td className="hash">{f.sha256 ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Folders() {
  const { roots, folders, folderError, addFolder, removeFolder, clearFolderError } = useModels();
  const [path, setPath] = useState('');
  const builtIn = roots.filter((r) => !folders.includes(r));
  return (
    <div className="model-folders" data-testid="model-folders">
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void addFolder(path).then((ok) => ok && setPath(''));
        }}
      >
        <input
          value={path}
          onChange={(e) => {
            setPath(e.target.value);
            clearFolderError();
          }}
          placeholder="/full/path/to/a/folder/with/checkpoints"
          size={44}
          aria-label="checkpoint folder"
          className={folderError ? 'invalid' : undefined}
          aria-invalid={!!folderError}
        />
        <button type="submit" disabled={!path.trim()}>
          Add folder
        </button>
      </form>
      {folderError && <FieldError message={folderError} onDismiss={clearFolderError} testId="folder-error" />}
      <ul className="folder-list">
        {builtIn.map((r) => (
          <li key={r} className="muted">
            {r} <span className="small">(the lab's own)</span>
          </li>
        ))}
        {folders.map((f) => (
          <li key={f} data-testid="model-folder" data-path={f}>
            {f}{' '}
            <button
              type="button"
              className="secondary small"
              onClick={() => void removeFolder(f)}
              aria-label={`Remove ${f}`}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function ModelsPage() {
  const { checkpoints, selected, loading, error, refresh, select, showSnapshots, setShowSnapshots } = useModels();
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const current = checkpoints.find((c) => c.path === selected) ?? null;
  return (
    <section data-testid="page-models">
      <div className="toolbar">
        <button onClick={() => void refresh()} disabled={loading}>
          {loading ? 'Listing…' : 'Refresh'}
        </button>
        <label className="filter" title="the PPO policy worker's weight copies (training/RUN/policy/v-N)">
          <input
            type="checkbox"
            checked={showSnapshots}
            onChange={(e) => setShowSnapshots(e.target.checked)}
            data-testid="show-snapshots"
          />{' '}
          show policy snapshots
        </label>
      </div>
      <Folders />
      {error && (
        <div className="error" role="alert">
          {error}
        </div>
      )}
      <CheckpointList checkpoints={checkpoints} selected={selected} onSelect={select} />
      {current?.status === 'ok' && <Playground />}
      {current && <CheckpointDetails c={current} />}
    </section>
  );
}
