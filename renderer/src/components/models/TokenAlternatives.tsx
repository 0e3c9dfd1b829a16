/** The most likely tokens at one sampled position, with their log-probs and probabilities; the sampled one marked. */
import type { PlaygroundToken } from '../../../../electron/domain/models';
import { tokenDisplayText } from '../common/token-text';
import { logprobColor } from './logprob-scale';

export function alternativesTitle(t: PlaygroundToken): string {
  if (!t.alternatives?.length) return '';
  return `\nmost likely here:\n${t.alternatives.map((a) => `${JSON.stringify(a.text)} ${a.logprob.toFixed(3)}`).join('\n')}`;
}

export function TokenAlternatives({ token, index }: { token: PlaygroundToken; index: number }) {
  const alts = token.alternatives ?? [];
  const sampledAmong = alts.some((a) => a.id === token.id);
  return (
    <div className="token-alternatives" data-testid="token-alternatives" data-index={index}>
      <div className="muted">
        {`Token ${index + 1}: `}
        <code>{tokenDisplayText(token.text)}</code>
        {` sampled at log-prob ${token.logprob.toFixed(3)} (p ${Math.exp(token.logprob).toPrecision(2)})`}
        {alts.length > 0 && !sampledAmong ? `, outside the ${alts.length} most likely` : ''}
      </div>
      {alts.length === 0 ? (
        <p className="muted">No alternatives were asked for (set "alternatives" above 0).</p>
      ) : (
        <table className="grid">
          <thead>
            <tr>
              <th>#</th>
              <th>token</th>
              <th>log-prob</th>
              <th>p</th>
            </tr>
          </thead>
          <tbody>
            {alts.map((a, i) => (
              <tr
                key={a.id}
                className={a.id === token.id ? 'sampled' : ''}
                data-id={a.id}
                data-logprob={a.logprob}
                data-testid="alternative"
              >
                <td>{i + 1}</td>
                <td>
                  <span className="token" style={logprobColor(a.logprob)}>
                    {tokenDisplayText(a.text)}
                  </span>
                  {a.id === token.id ? ' ← sampled' : ''}
                </td>
                <td>{a.logprob.toFixed(3)}</td>
                <td>{Math.exp(a.logprob).toPrecision(3)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
