/**
 * One episode, turn by turn: the system prompt and the instruction, what the agent said and did, what it
 * read back, the sampled tokens' log-probs (token-level policies), then the verifier's verdict and the
 * recording. ←/→ (or j/k) step through turns while the viewer has focus; "Whole transcript" shows every
 * turn at once. The turn shown is part of the address (#/runs/RUN/EPISODE/TURN).
 */
import { useEffect, useRef, useState } from 'react';
import { getLabApi } from '../../lab/api';
import type { OpenEpisode } from '../../stores/runs';
import { AssertionTable } from '../common/AssertionTable';
import { Markdown } from '../common/Markdown';
import { KeyValue } from '../KeyValue';
import { logprobColor } from '../models/logprob-scale';
import { CastPlayer } from './CastPlayer';
import { describeContext } from './context-text';

type Turn = OpenEpisode['trajectory']['turns'][number];

function ActionText({ action }: { action: Turn['actions'][number] }) {
  if (action.tool === 'bash') return <code>$ {action.command}</code>;
  if (action.tool === 'keys') return <code>keys {JSON.stringify(action.keys)}</code>;
  return <code>submit</code>;
}

/** The sampled tokens of a turn as a strip of cells coloured by log-prob (ids and log-probs in tooltips). */
function TokenStrip({ tokens }: { tokens: NonNullable<Turn['tokens']> }) {
  const n = tokens.logprobs.length;
  if (!n) return null;
  const mean = tokens.logprobs.reduce((a, b) => a + b, 0) / n;
  const min = Math.min(...tokens.logprobs);
  return (
    <div className="token-strip" data-testid="turn-tokens">
      <span className="muted small">{`${n} sampled tokens · mean log-prob ${mean.toFixed(2)} · least likely ${min.toFixed(2)} (p ${Math.exp(min).toPrecision(2)})`}</span>
      <div className="token-cells">
        {tokens.logprobs.map((lp, i) => (
          <span
            key={i}
            className="token-cell"
            style={{ background: logprobColor(lp).background }}
            title={`#${i} id ${tokens.ids[i]} · log-prob ${lp.toFixed(3)}`}
          />
        ))}
      </div>
    </div>
  );
}

function TurnView({ turn, index }: { turn: Turn; index: number }) {
  return (
    <div className="turn" data-turn={index + 1}>
      {turn.reasoning && <p className="reasoning">{turn.reasoning}</p>}
      <div className="actions" data-testid="turn-actions">
        {turn.parseError ? (
          <span className="warn">did not parse: {turn.parseError}</span>
        ) : (
          turn.actions.map((a, i) => <ActionText key={i} action={a} />)
        )}
      </div>
      {turn.tokens ? (
        <div className="raw-and-tokens">
          <div>
            <div className="muted small">assistant message as generated</div>
            <pre className="raw-text" data-testid="turn-raw-text">
              {turn.text}
            </pre>
          </div>
          <TokenStrip tokens={turn.tokens} />
        </div>
      ) : (
        turn.text && (
          <details className="raw-details">
            <summary className="muted small">assistant message as generated</summary>
            <pre className="raw-text" data-testid="turn-raw-text">
              {turn.text}
            </pre>
          </details>
        )
      )}
      <pre className="observation" data-testid="turn-observation">
        {turn.observation}
      </pre>
    </div>
  );
}

export function EpisodeViewer({
  episode,
  onClose,
  turn: wanted = 0,
  onTurn,
}: {
  episode: OpenEpisode;
  onClose: () => void;
  turn?: number;
  onTurn?: (index: number) => void;
}) {
  const t = episode.trajectory;
  const last = Math.max(0, t.turns.length - 1);
  const [index, setIndexState] = useState(Math.min(Math.max(0, wanted), last));
  const [whole, setWhole] = useState(false);
  const root = useRef<HTMLElement>(null);
  const turn = t.turns[index];
  const setIndex = (i: number) => {
    const next = Math.min(Math.max(0, i), last);
    setIndexState(next);
    onTurn?.(next);
  };
  useEffect(() => {
    setWhole(false);
    root.current?.focus();
  }, [episode.runId, episode.key]);
  useEffect(() => {
    setIndexState(Math.min(Math.max(0, wanted), last));
  }, [wanted, last, episode.key]);

  const onKey = (e: React.KeyboardEvent) => {
    const target = e.target as HTMLElement;
    if (['INPUT', 'SELECT', 'TEXTAREA'].includes(target.tagName) || target.closest('.cast-player')) return;
    if (e.key === 'ArrowRight' || e.key === 'j') setIndex(index + 1);
    else if (e.key === 'ArrowLeft' || e.key === 'k') setIndex(index - 1);
    else if (e.key === 'Home') setIndex(0);
    else if (e.key === 'End') setIndex(last);
    else if (e.key === 'Escape') onClose();
    else return;
    e.preventDefault();
  };

  return (
    <section
      className="episode-viewer"
      data-testid="episode-viewer"
      tabIndex={-1}
      ref={root}
      onKeyDown={onKey}
      aria-label="Episode: ←/→ step through turns, Esc closes"
    >
      <div className="toolbar">
        <h2>
          {t.task.id} · attempt {episode.record?.attempt ?? '?'}
        </h2>
        <button onClick={onClose}>Close</button>
      </div>
      <EpisodeSummary trajectory={t} />
      <details className="episode-prompt" data-testid="episode-prompt">
        <summary>System prompt and instruction</summary>
        <h3>System prompt</h3>
        <pre className="observation">{t.system}</pre>
        <h3>Instruction</h3>
        <Markdown text={t.instruction} />
      </details>
      {t.turns.length > 0 && turn && (
        <TurnStepper turns={t.turns} index={index} onIndex={setIndex} whole={whole} onWhole={setWhole} />
      )}
      <h2>Verifier</h2>
      {t.verifier ? (
        <AssertionTable assertions={t.verifier.assertions} testId="assertions" />
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
      <Recording key={`${episode.runId}/${episode.key}`} episode={episode} />
    </section>
  );
}

type Trajectory = OpenEpisode['trajectory'];

/** Policy, outcome, reward, turns, time, the token ledger's counters and what happened to the context. */
function EpisodeSummary({ trajectory: t }: { trajectory: Trajectory }) {
  return (
    <KeyValue
      rows={[
        ['policy', `${t.policy.id} (${t.policy.protocol})`],
        [
          'outcome',
          `${t.resolved ? 'resolved' : 'not resolved'} · ${t.stopReason}${t.error ? ` · ${t.error.kind}: ${t.error.message}` : ''}`,
        ],
        [
          'reward',
          t.reward
            ? `dense ${t.reward.dense} · fraction ${t.reward.fraction.toFixed(2)} · binary ${t.reward.binary}`
            : '—',
        ],
        ['turns', String(t.turns.length)],
        ['time', `${new Date(t.startedAt).toLocaleString()} · ${(t.durationMs / 1000).toFixed(1)} s`],
        ...(t.ledger
          ? [
              [
                'token ledger',
                `CLEAN ${t.ledger.counters.clean} · REPAIR ${t.ledger.counters.repair} · FORK ${t.ledger.counters.fork} · loss drift ${t.ledger.counters.lossDrift}`,
              ] as [string, string],
            ]
          : []),
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
  );
}

interface StepperProps {
  turns: Trajectory['turns'];
  index: number;
  onIndex(i: number): void;
  whole: boolean;
  onWhole(whole: boolean): void;
}

/** One turn at a time (prev, next, a slider, its timing), or the whole transcript. */
function TurnStepper({ turns, index, onIndex, whole, onWhole }: StepperProps) {
  const last = Math.max(0, turns.length - 1);
  const turn = turns[index]!;
  return (
    <div className="turn-stepper" data-testid="turn-stepper">
      <div className="toolbar">
        <button onClick={() => onIndex(index - 1)} disabled={whole || index === 0} data-testid="turn-prev">
          ◀ Prev
        </button>
        <input
          type="range"
          min={0}
          max={last}
          value={index}
          disabled={whole}
          onChange={(e) => onIndex(Number(e.target.value))}
          aria-label="turn"
        />
        <button onClick={() => onIndex(index + 1)} disabled={whole || index === last} data-testid="turn-next">
          Next ▶
        </button>
        <span data-testid="turn-label">
          {whole ? `all ${turns.length} turns` : `turn ${index + 1} / ${turns.length}`}
        </span>
        {!whole && (
          <span className="muted">
            policy {turn.timing.policyMs.toFixed(0)} ms · env {turn.timing.envMs.toFixed(0)} ms
          </span>
        )}
        <label>
          <input
            type="checkbox"
            checked={whole}
            onChange={(e) => onWhole(e.target.checked)}
            data-testid="whole-transcript"
          />{' '}
          whole transcript
        </label>
      </div>
      {whole ? (
        <ol className="transcript" data-testid="transcript">
          {turns.map((x, i) => (
            <li key={i}>
              <div className="muted small">turn {i + 1}</div>
              <TurnView turn={x} index={i} />
            </li>
          ))}
        </ol>
      ) : (
        <TurnView turn={turn} index={index} />
      )}
    </div>
  );
}

/** The episode's recording: loaded on request, then replayed with a marker per turn. Keyed by episode, so another episode starts unloaded. */
function Recording({ episode }: { episode: OpenEpisode }) {
  const [cast, setCast] = useState<string | null>(null);
  const [castError, setCastError] = useState<string | null>(null);
  const t = episode.trajectory;
  return (
    <>
      {!episode.hasRecording ? (
        <p className="muted">No recording.</p>
      ) : cast ? (
        <CastPlayer cast={cast} turns={t.turns.map((x) => ({ startedAt: x.startedAt, policyMs: x.timing.policyMs }))} />
      ) : (
        <button
          data-testid="load-recording"
          onClick={() =>
            getLabApi()
              .methods['runs.recording']({ runId: episode.runId, key: episode.key })
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
    </>
  );
}
