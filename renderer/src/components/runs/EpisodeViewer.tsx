/** One episode, turn by turn: what the agent said and did, what it read back, then the verifier's verdict and the recording. */
import { useEffect, useState } from 'react';
import { getLabApi } from '../../lab/api';
import type { OpenEpisode } from '../../stores/runs';
import { KeyValue } from '../KeyValue';
import { CastPlayer } from './CastPlayer';
import { describeContext } from './context-text';

function ActionText({ action }: { action: OpenEpisode['trajectory']['turns'][number]['actions'][number] }) {
  if (action.tool === 'bash') return <code>$ {action.command}</code>;
  if (action.tool === 'keys') return <code>keys {JSON.stringify(action.keys)}</code>;
  return <code>submit</code>;
}

export function EpisodeViewer({ episode, onClose }: { episode: OpenEpisode; onClose: () => void }) {
  const t = episode.trajectory;
  const [index, setIndex] = useState(0);
  const [cast, setCast] = useState<string | null>(null);
  const [castError, setCastError] = useState<string | null>(null);
  const turn = t.turns[index];
  useEffect(() => {
    setIndex(0);
    setCast(null);
    setCastError(null);
  }, [episode.runId, episode.key]);

  return (
    <section className="episode-viewer" data-testid="episode-viewer">
      <div className="toolbar">
        <h2>
          {t.task.id} · attempt {episode.record?.attempt ?? '?'}
        </h2>
        <button onClick={onClose}>Close</button>
      </div>
      <KeyValue
        rows={[
          ['policy', `${t.policy.id} (${t.policy.protocol})`],
          ['outcome', `${t.resolved ? 'resolved' : 'not resolved'} · ${t.stopReason}${t.error ? ` · ${t.error.kind}: ${t.error.message}` : ''}`],
          ['reward', t.reward ? `dense ${t.reward.dense} · fraction ${t.reward.fraction.toFixed(2)} · binary ${t.reward.binary}` : '—'],
          ['turns', String(t.turns.length)],
          ...(t.ledger ? [['token ledger', `CLEAN ${t.ledger.counters.clean} · REPAIR ${t.ledger.counters.repair} · FORK ${t.ledger.counters.fork} · loss drift ${t.ledger.counters.lossDrift}`] as [string, string]] : []),
          ...(t.contextEvents.length
            ? [
                [
                  'context',
                  <ul className="context-events" data-testid="context-events">
                    {describeContext(t.contextEvents, t.stopReason).map((line, i) => (
                      <li key={i}>{line}</li>
                    ))}
                  </ul>,
                ] as [string, React.ReactNode],
              ]
            : []),
        ]}
      />
      {t.turns.length > 0 && turn && (
        <div className="turn-stepper" data-testid="turn-stepper">
          <div className="toolbar">
            <button onClick={() => setIndex(Math.max(0, index - 1))} disabled={index === 0} data-testid="turn-prev">
              ◀ Prev
            </button>
            <input type="range" min={0} max={t.turns.length - 1} value={index} onChange={(e) => setIndex(Number(e.target.value))} aria-label="turn" />
            <button onClick={() => setIndex(Math.min(t.turns.length - 1, index + 1))} disabled={index === t.turns.length - 1} data-testid="turn-next">
              Next ▶
            </button>
            <span data-testid="turn-label">
              turn {index + 1} / {t.turns.length}
            </span>
            <span className="muted">
              policy {turn.timing.policyMs.toFixed(0)} ms · env {turn.timing.envMs.toFixed(0)} ms
            </span>
          </div>
          {turn.reasoning && <p className="reasoning">{turn.reasoning}</p>}
          <div className="actions" data-testid="turn-actions">
            {turn.parseError ? <span className="warn">did not parse</span> : turn.actions.map((a, i) => <ActionText key={i} action={a} />)}
          </div>
          <pre className="observation" data-testid="turn-observation">
            {turn.observation}
          </pre>
        </div>
      )}
      <h2>Verifier</h2>
      {t.verifier ? (
        <table className="grid" data-testid="assertions">
          <thead>
            <tr>
              <th>assertion</th>
              <th>status</th>
              <th>message</th>
            </tr>
          </thead>
          <tbody>
            {t.verifier.assertions.map((a) => (
              <tr key={a.name}>
                <td>{a.name}</td>
                <td className={a.status === 'passed' ? 'ok' : 'warn'}>{a.status}</td>
                <td>{a.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">The verifier did not run.</p>
      )}
      {episode.verifierOutput && (
        <details>
          <summary>verifier output</summary>
          <pre className="observation">{episode.verifierOutput}</pre>
        </details>
      )}
      <h2>Recording</h2>
      {!episode.hasRecording ? (
        <p className="muted">No recording.</p>
      ) : cast ? (
        <CastPlayer cast={cast} />
      ) : (
        <button
          data-testid="load-recording"
          onClick={() =>
            getLabApi()
              .methods['runs.recording']({ runId: episode.runId, key: episode.key })
              .then((r) => setCast(r.cast), (e: Error) => setCastError(e.message))
          }
        >
          Replay the recording
        </button>
      )}
      {castError && <div className="error">{castError}</div>}
    </section>
  );
}
