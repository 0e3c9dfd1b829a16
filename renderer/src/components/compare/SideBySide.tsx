/**
 * One task's episodes of the compared runs side by side (`#/compare/A/B/…/task=ID`): a column per run that
 * holds the task, its first episode in the episode viewer (turns, verifier, recording), so what B did
 * differently from A reads across one screen.
 */
import { useEffect, useState } from 'react';
import { getLabApi } from '../../lab/api';
import type { OpenEpisode } from '../../stores/runs';
import type { CompareRow } from '../runs/compare/compare-rows';
import { EpisodeViewer } from '../runs/EpisodeViewer';

/** The address segment that names the task shown side by side (run ids never hold '='). */
export const SIDE_BY_SIDE_PREFIX = 'task=';

export function sideBySideTask(params: readonly string[]): string | null {
  const p = params.find((x) => x.startsWith(SIDE_BY_SIDE_PREFIX));
  return p ? p.slice(SIDE_BY_SIDE_PREFIX.length) || null : null;
}

export function SideBySide({
  ids,
  letters,
  row,
  onClose,
}: {
  ids: readonly string[];
  letters: readonly string[];
  row: CompareRow;
  onClose: () => void;
}) {
  /** Per run: its episode, null where it does not hold the task, or why it could not be read. */
  const [episodes, setEpisodes] = useState<(OpenEpisode | { error: string } | null)[] | null>(null);
  const keys = row.outcomes.map((o) => o?.firstKey ?? null);
  const signature = `${ids.join('\n')}|${keys.join('\n')}`;
  useEffect(() => {
    let stale = false;
    setEpisodes(null);
    const api = getLabApi().methods;
    // One run's episode that cannot be read (no trajectory yet) leaves the others shown.
    const read = (runId: string, key: string | null) =>
      key
        ? api['runs.episode']({ runId, key }).then(
            (view) => ({ runId, key, ...view }),
            (e: Error) => ({ error: e.message }),
          )
        : Promise.resolve(null);
    void Promise.all(ids.map((runId, i) => read(runId, keys[i] ?? null))).then((e) => !stale && setEpisodes(e));
    return () => {
      stale = true;
    };
  }, [signature]);
  return (
    <section className="side-by-side" data-testid="side-by-side" data-task={row.taskId}>
      <div className="toolbar">
        <h2>{`${row.taskId}: episodes side by side`}</h2>
        <button type="button" onClick={onClose} data-testid="side-by-side-close">
          close
        </button>
      </div>
      {!episodes && <p className="muted">Reading the episodes…</p>}
      {episodes && (
        <div className="side-by-side-columns" style={{ gridTemplateColumns: `repeat(${ids.length}, minmax(0, 1fr))` }}>
          {episodes.map((e, i) => (
            <div
              key={ids[i]}
              className="side-by-side-column"
              data-testid="side-by-side-run"
              data-run={ids[i]}
              data-key={keys[i] ?? ''}
            >
              <h3>
                <b>{letters[i]}</b> <span className="run-id">{ids[i]}</span>
              </h3>
              {!e ? (
                <p className="muted">This run does not hold the task.</p>
              ) : 'error' in e ? (
                <div className="error">{e.error}</div>
              ) : (
                <EpisodeViewer episode={e} onClose={onClose} />
              )}
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
