/**
 * A token strip: the sampled tokens, each coloured by its log-prob (viridis), with its id, log-prob, routing
 * and most likely alternatives in its tooltip; a click picks it (shift for a range).
 */
import type { PlaygroundToken } from '../../../../electron/domain/models';
import { tokenDisplayText } from '../common/token-text';
import { logprobColor } from './logprob-scale';
import { alternativesTitle } from './TokenAlternatives';

export function SampledTokens({
  tokens,
  selected,
  onToggle,
  streaming,
}: {
  tokens: PlaygroundToken[];
  selected: number[];
  onToggle: (i: number, extend: boolean) => void;
  streaming: boolean;
}) {
  return (
    <div className="tokens" data-testid="sampled-tokens" data-streaming={streaming ? '1' : '0'}>
      {tokens.map((t, i) => (
        <span
          key={i}
          className={selected.includes(i) ? 'token picked' : 'token'}
          style={logprobColor(t.logprob)}
          title={`id ${t.id}, log-prob ${t.logprob.toFixed(3)} (p ${Math.exp(t.logprob).toPrecision(2)})${t.experts ? `\n${t.experts.map((e, l) => `layer ${l}: ${e.join(', ')}`).join('\n')}` : ''}${alternativesTitle(t)}`}
          onClick={(e) => onToggle(i, e.shiftKey)}
          data-logprob={t.logprob}
          data-id={t.id}
        >
          {tokenDisplayText(t.text)}
        </span>
      ))}
    </div>
  );
}

/** Tokens per second, or a dash when no time was measured. */
export function rate(tokens: number, ms: number): string {
  return ms > 0 ? `${((tokens * 1000) / ms).toFixed(1)} tokens/s` : '—';
}
