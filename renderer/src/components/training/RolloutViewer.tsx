/**
 * One rollout token by token, the training view of the Runs page's trajectory viewer: each token painted
 * by the sampler's log-prob, its advantage, its value or its TIS weight (a switch, with the legend), tokens
 * outside the loss shown plain and struck through by a dotted underline, the ledger's check at each turn
 * boundary, and for a picked token its numbers and experts per layer (the Models page's heatmap).
 */
import { Fragment, useState } from 'react';
import type { RolloutToken, RolloutView } from '../../../../electron/domain/training-view';
import { useTraining, type ColourBy } from '../../stores/training';
import { ExpertHeatmap } from '../ExpertHeatmap';
import { KeyValue } from '../KeyValue';
import { formatY } from './MetricChart';
import { tokenScale, type TokenScale } from './token-colours';
import { tokenDisplayText } from '../common/token-text';

const COLOUR_BY: { id: ColourBy; label: string }[] = [
  { id: 'logprob', label: 'log-prob' },
  { id: 'advantage', label: 'advantage' },
  { id: 'value', label: 'value' },
  { id: 'tisWeight', label: 'TIS weight' },
];

function Legend({ scale }: { scale: TokenScale }) {
  return (
    <div className="token-legend" data-testid="token-legend">
      <span>{scale.title}</span>
      <span className="legend-bar" style={{ background: `linear-gradient(to right, ${scale.stops.join(', ')})` }} />
      <span className="legend-labels">
        {scale.labels.map((l, i) => (
          <span key={i}>{l}</span>
        ))}
      </span>
      <span className="token masked legend-masked">outside the loss</span>
    </div>
  );
}

function TokenDetails({ token, index, numExperts }: { token: RolloutToken; index: number; numExperts: number | null }) {
  return (
    <div className="token-details" data-testid="token-details">
      <KeyValue
        rows={[
          ['token', `#${index} id ${token.id} ${JSON.stringify(token.text)}`],
          ['segment', `${token.kind}${token.mask ? ' · in the loss' : ' · outside the loss'}`],
          ['log-prob', formatY(token.logprob)],
          ['advantage', formatY(token.advantage)],
          ['value', formatY(token.value)],
          ['TIS weight', formatY(token.tisWeight)],
          ['experts', token.experts ? token.experts.map((e, l) => `L${l}: ${e.join(',')}`).join('  ') : '—'],
        ]}
      />
      {token.experts && numExperts !== null && <ExpertHeatmap tokens={[token]} numExperts={numExperts} />}
    </div>
  );
}

export function RolloutViewer({ view, onClose }: { view: RolloutView; onClose: () => void }) {
  const { colourBy, setColourBy } = useTraining();
  const [picked, setPicked] = useState<number | null>(null);
  const scale = tokenScale(view.tokens, colourBy);
  const boundaries = new Map(view.turnStarts.map((start, turn) => [start, turn]));
  const events = new Map(view.ledgerEvents.map((e) => [e.tokenIndex, e]));
  const e = view.episode;
  const inLoss = view.tokens.filter((t) => t.mask === 1).length;
  return (
    <section className="rollout-viewer" data-testid="rollout-viewer" data-colour-by={colourBy}>
      <div className="toolbar">
        <h3>
          {e.taskId} · {e.key} · step {view.step}
        </h3>
        <button onClick={onClose}>Close</button>
      </div>
      <p className="muted">
        reward {e.reward ?? '—'} · {e.resolved ? 'resolved' : 'not resolved'}
        {e.aborted ? ' · aborted' : ''} · {e.turns} turns · {view.tokens.length} tokens, {inLoss} in the loss
      </p>
      <div className="toolbar" role="radiogroup" aria-label="colour tokens by">
        colour by
        {COLOUR_BY.map((c) => (
          <button
            key={c.id}
            role="radio"
            aria-checked={colourBy === c.id}
            className={colourBy === c.id ? 'active' : ''}
            onClick={() => setColourBy(c.id)}
            data-testid={`colour-${c.id}`}
          >
            {c.label}
          </button>
        ))}
      </div>
      <Legend scale={scale} />
      <div className="tokens rollout-tokens" data-testid="rollout-tokens">
        {view.tokens.map((t, i) => {
          const turn = boundaries.get(i);
          const ev = events.get(i);
          const bg = t.mask === 1 ? scale.colour(t) : null;
          return (
            <Fragment key={i}>
              {turn !== undefined && (
                <span className="turn-boundary" data-testid="turn-boundary">
                  turn {turn + 1}
                  {ev && (
                    <span
                      className={`badge ledger-${ev.verdict.toLowerCase()}`}
                      data-testid="ledger-event"
                      title={ev.maskedSampled ? `${ev.maskedSampled} sampled tokens masked by the repair` : ''}
                    >
                      {ev.verdict}
                    </span>
                  )}
                </span>
              )}
              {turn === undefined && ev && (
                <span className={`badge ledger-${ev.verdict.toLowerCase()}`} data-testid="ledger-event">
                  {ev.verdict}
                </span>
              )}
              <span
                className={`token${t.mask ? '' : ' masked'}${picked === i ? ' picked' : ''}`}
                style={bg ? { background: bg } : undefined}
                data-testid="rollout-token"
                data-mask={t.mask}
                data-colour={bg ?? ''}
                onClick={() => setPicked(picked === i ? null : i)}
                title={`${t.kind} · id ${t.id}${t.mask ? '' : ' · outside the loss'}`}
              >
                {tokenDisplayText(t.text)}
              </span>
            </Fragment>
          );
        })}
      </div>
      {picked !== null && view.tokens[picked] && (
        <TokenDetails token={view.tokens[picked]} index={picked} numExperts={view.numExperts} />
      )}
    </section>
  );
}
