/**
 * A run's name, tags and notes, edited in place and saved to its meta.json (`runs.setMeta`, the service
 * behind `t1lab runs rename|tag|note`), and removing the run (`runs.remove`, as `t1lab runs rm`): asks
 * first, and is not offered while the run is running. Used for eval and training runs alike.
 */
import { useEffect, useState } from 'react';
import { getLabApi } from '../../lab/api';
import { userError } from '../../lab/errors';

interface Props {
  runId: string;
  name: string | null;
  tags: readonly string[];
  notes: string;
  running: boolean;
  onChanged(): void;
  onRemoved(): void;
}

const splitTags = (text: string) => [...new Set(text.split(/[\s,]+/).filter(Boolean))];

export function RunMetaEditor({ runId, name, tags, notes, running, onChanged, onRemoved }: Props) {
  const [draft, setDraft] = useState({ name: name ?? '', tags: tags.join(' '), notes });
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState(false);
  // Another run, or the same run edited elsewhere (the CLI): start from what the folder says.
  useEffect(() => {
    setDraft({ name: name ?? '', tags: tags.join(' '), notes });
    setConfirming(false);
    setError(null);
  }, [runId, name, tags.join(' '), notes]);

  const dirty =
    draft.name.trim() !== (name ?? '') || splitTags(draft.tags).join(' ') !== tags.join(' ') || draft.notes !== notes;
  const save = async () => {
    const wanted = splitTags(draft.tags);
    try {
      await getLabApi().methods['runs.setMeta']({
        runId,
        patch: {
          name: draft.name.trim() === '' ? null : draft.name.trim(),
          addTags: wanted.filter((t) => !tags.includes(t)),
          removeTags: tags.filter((t) => !wanted.includes(t)),
          notes: draft.notes,
        },
      });
      setError(null);
      setSaved(true);
      setTimeout(() => setSaved(false), 2_000);
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
      <label>
        name
        <input
          name="run-name"
          value={draft.name}
          placeholder="a name for this run"
          onChange={(e) => setDraft({ ...draft, name: e.target.value })}
        />
      </label>
      <label>
        tags (space or comma separated)
        <input
          name="run-tags"
          value={draft.tags}
          placeholder="baseline r3:on"
          onChange={(e) => setDraft({ ...draft, tags: e.target.value })}
        />
      </label>
      <label className="notes">
        notes
        <textarea
          name="run-notes"
          value={draft.notes}
          placeholder="what this run is for, what you saw"
          onChange={(e) => setDraft({ ...draft, notes: e.target.value })}
        />
      </label>
      <div className="actions">
        <button type="submit" disabled={!dirty} data-testid="run-meta-save">
          Save
        </button>
        {saved && <span className="ok">saved to meta.json</span>}
        {error && (
          <span className="error-text" role="alert" data-testid="run-meta-error">
            {error}
          </span>
        )}
        <span style={{ flex: 1 }} />
        {confirming ? (
          <>
            <span>Delete this run and all its files?</span>
            <button type="button" className="danger" data-testid="run-delete-confirm" onClick={() => void remove()}>
              Delete
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </>
        ) : (
          <button
            type="button"
            className="danger"
            data-testid="run-delete"
            disabled={running}
            title={running ? 'cancel the run before deleting it' : 'delete the run folder'}
            onClick={() => setConfirming(true)}
          >
            Delete run…
          </button>
        )}
      </div>
    </form>
  );
}
