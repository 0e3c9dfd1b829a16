/**
 * Two models on the same prompt, side by side: a column each with the model's name, its tokens as they
 * stream in and then its result (stop reason, seed, decode speed), each token coloured by log-prob as in the
 * single view; a click on a token lists the most likely tokens at its position, in its own column. One
 * legend under both. The columns share the width (a long sample wraps), so the page never scrolls sideways.
 */
import { useEffect, useState } from 'react';
import type { PlaygroundResult, PlaygroundToken } from '../../../../electron/domain/models';
import type { UserError } from '../../lab/errors';
import { LogprobLegend } from './LogprobLegend';
import { rate, SampledTokens } from './SampledTokens';
import { TokenAlternatives } from './TokenAlternatives';

export interface LaneView {
  /** The checkpoint's path, and its name for a person. */
  path: string;
  label: string;
  streamed: PlaygroundToken[];
  /** Its sample is in flight. */
  streaming: boolean;
  sample: PlaygroundResult | null;
  /** Its sample's error, shown in its column. */
  error: UserError | null;
}

function Lane({ lane }: { lane: LaneView }) {
  const [focused, setFocused] = useState<number | null>(null);
  useEffect(() => setFocused(null), [lane.sample]);
  const { sample } = lane;
  const tokens = lane.streaming ? lane.streamed : (sample?.tokens ?? []);
  return (
    <div className="playground-lane" data-testid="lane" data-path={lane.path}>
      <div className="lane-head" title={lane.path}>
        {lane.label}
      </div>
      {lane.streaming && <div className="muted small">{`${lane.streamed.length} tokens so far…`}</div>}
      {!lane.streaming && sample && (
        <div className="muted small" data-testid="lane-meta">
          {sample.tokens.length} tokens, {sample.stopReason}, seed {sample.seed}, on {sample.provider} · decode{' '}
          {rate(sample.tokens.length, sample.timing.decodeMs)}
        </div>
      )}
      {lane.error && (
        <div className="error" role="alert" data-testid="lane-error">
          {lane.error.message}
        </div>
      )}
      {(lane.streaming || sample) && (
        <SampledTokens
          tokens={tokens}
          selected={focused === null ? [] : [focused]}
          onToggle={(i) => setFocused(focused === i ? null : i)}
          streaming={lane.streaming}
        />
      )}
      {!lane.streaming && focused !== null && sample?.tokens[focused] && (
        <TokenAlternatives token={sample.tokens[focused]!} index={focused} />
      )}
    </div>
  );
}

export function SideBySide({ lanes }: { lanes: [LaneView, LaneView] }) {
  const shown = lanes.some((l) => l.streaming || l.sample || l.error);
  return (
    <div data-testid="side-by-side">
      <div className="playground-lanes">
        {lanes.map((lane, i) => (
          <Lane key={`${i}-${lane.path}`} lane={lane} />
        ))}
      </div>
      {shown && <LogprobLegend />}
      {shown && (
        <div className="muted small">
          Click a token for the most likely tokens at its position. The expert heatmap shows with one model.
        </div>
      )}
    </div>
  );
}
