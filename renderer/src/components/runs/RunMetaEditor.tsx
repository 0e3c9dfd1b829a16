/**
 * A run's name, tags and notes, edited in place and saved to its meta.json (`runs.setMeta`, the service
 * behind `t1lab runs rename|tag|note`), and removing the run (`runs.remove`, as `t1lab runs rm`): asks
 * first, and is not offered while the run is running. Used for eval and training runs alike.
 */
import { useEffect, useState } from 'react';
import { getLabApi } from '../../lab/api';
import { userError } from '../../lab/errors';
import { draftOfMeta, metaChanged, metaPatch, type RunMetaDraft } from './run-meta';

interface Props {
  runId: string;
  name: string | null;
  tags: readonly string[];
  notes: string;
  running: boolean;
  onChanged(): void;
  onRemoved(): void;
}

/** How long "saved to meta.json" stays after a save. */
const SAVED_NOTICE_MS = 2_000;

export function RunMetaEditor({ runId, name, tags, notes, running, onChanged, onRemoved }: Props) {
  const [draft, setDraft] = useState(() => draftOfMeta({ name, tags, notes }));
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState(false);
  // Another run, or the same run edited elsewhere (the CLI): start from what the folder says.
  useEffect(() => {
    setDraft(draftOfMeta({ name, tags, notes }));
    setConfirming(false);
    setError(null);
  }, [runId, name, tags.join(' '), notes]);

  const save = async () => {
    try {
      await getLabApi().methods['runs.setMeta']({ runId, patch: metaPatch(draft, tags) });
      setError(null);
      setSaved(true);
      setTimeout(() => setSaved(false), SAVED_NOTICE_MS);
      onChanged();
    } catch (e) {
      setError(userError(e).message);
    }
  };
  const remove = async () => {
    try {
      await getLabApi().methods['runs.remove']({ runId });
      onRemoved();
    } catch (e) {
      setError(userError(e).message);
      setConfirming(false);
    }
  };

  return (
    <form
      className="run-meta"
      data-testid="run-meta"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <RunMetaFields draft={draft} onDraft={setDraft} />
      <div className="actions">
        <button type="submit" disabled={!metaChanged(draft, { name, tags, notes })} data-testid="run-meta-save">
          Save
        </button>
        {saved && <span className="ok">saved to meta.json</span>}
        {error && (
          <span className="error-text" role="alert" data-testid="run-meta-error">
            {error}
          </span>
        )}
        <span style={{ flex: 1 }} />
        <RunDeleteControl
          running={running}
          confirming={confirming}
          onConfirming={setConfirming}
          onDelete={() => void remove()}
        />
      </div>
    </form>
  );
}

function RunMetaFields({ draft, onDraft }: { draft: RunMetaDraft; onDraft: (draft: RunMetaDraft) => void }) {
  return (
    <>
      <label>
        name
        <input
          name="run-name"
          value={draft.name}
          placeholder="a name for this run"
          onChange={(e) => onDraft({ ...draft, name: e.target.value })}
        />
      </label>
      <label>
        tags (space or comma separated)
        <input
          name="run-tags"
          value={draft.tags}
          placeholder="baseline r3:on"
          onChange={(e) => onDraft({ ...draft, tags: e.target.value })}
        />
      </label>
      <label className="notes">
        notes
        <textarea
          name="run-notes"
          value={draft.notes}
          placeholder="what this run is for, what you saw"
          onChange={(e) => onDraft({ ...draft, notes: e.target.value })}
        />
      </label>
    </>
  );
}

/** Delete the run: asks first, and is disabled while the run is running. */
function RunDeleteControl({
  running,
  confirming,
  onConfirming,
  onDelete,
}: {
  running: boolean;
  confirming: boolean;
  onConfirming: (confirming: boolean) => void;
  onDelete: () => void;
}) {
  if (confirming)
    return (
      <>
        <span>Delete this run and all its files?</span>
        <button type="button" className="danger" data-testid="run-delete-confirm" onClick={onDelete}>
          Delete
        </button>
        <button type="button" onClick={() => onConfirming(false)}>
          Keep
        </button>
      </>
    );
  return (
    <button
      type="button"
      className="danger"
      data-testid="run-delete"
      disabled={running}
      title={running ? 'cancel the run before deleting it' : 'delete the run folder'}
      onClick={() => onConfirming(true)}
    >
      Delete run…
    </button>
  );
}
