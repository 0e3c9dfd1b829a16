/**
 * A rollout opened as an episode: its outcome, the verifier's verdict per assertion with its output, and
 * the terminal recording replayed, read from the rollout's episode folder (a PPO step keeps one per episode).
 */
import { useEffect, useState } from 'react';
import type { RolloutEpisodeFiles } from '../../../../electron/domain/training-view';
import { getLabApi } from '../../lab/api';
import { AssertionTable } from '../common/AssertionTable';
import { CastPlayer } from '../runs/CastPlayer';

export function RolloutEpisodePanel({ runId, step, episodeKey }: { runId: string; step: number; episodeKey: string }) {
  const [files, setFiles] = useState<RolloutEpisodeFiles | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [cast, setCast] = useState<string | null>(null);
  const [castError, setCastError] = useState<string | null>(null);
  useEffect(() => {
    let stale = false;
    setFiles(null);
    setError(null);
    setCast(null);
    setCastError(null);
    getLabApi()
      .methods['training.rolloutEpisode']({ runId, step, key: episodeKey })
      .then(
        (f) => !stale && setFiles(f),
        (e: Error) => !stale && setError(e.message),
      );
    return () => {
      stale = true;
    };
  }, [runId, step, episodeKey]);

  if (error)
    return (
      <p className="muted" data-testid="rollout-episode-missing">
        {error}
      </p>
    );
  if (!files) return null;
  return (
    <section className="rollout-episode" data-testid="rollout-episode" data-key={files.key}>
      <h3>
        Episode {files.taskId} · step {files.step}
      </h3>
      <p data-testid="rollout-episode-outcome">
        {files.resolved ? 'resolved' : 'not resolved'} · {files.stopReason}
        {files.reward
          ? ` · dense ${files.reward.dense} · fraction ${files.reward.fraction.toFixed(2)} · binary ${files.reward.binary}`
          : ''}
      </p>
      <h3>Verifier</h3>
      {files.verifierRan ? (
        <AssertionTable assertions={files.assertions} testId="rollout-assertions" />
      ) : (
        <p className="muted">The verifier did not run.</p>
      )}
      {files.verifierOutput && (
        <details data-testid="rollout-verifier-output">
          <summary>verifier output</summary>
          <pre className="details-text">{files.verifierOutput}</pre>
        </details>
      )}
      <h3>Recording</h3>
      {!files.hasRecording ? (
        <p className="muted">No recording.</p>
      ) : cast ? (
        <CastPlayer cast={cast} />
      ) : (
        <button
          type="button"
          data-testid="rollout-load-recording"
          onClick={() =>
            getLabApi()
              .methods['training.rolloutRecording']({ runId, step, key: episodeKey })
              .then(
                (r) => setCast(r.cast),
                (e: Error) => setCastError(e.message),
              )
          }
        >
          Replay the recording
        </button>
      )}
      {castError && <div className="error">{castError}</div>}
    </section>
  );
}
