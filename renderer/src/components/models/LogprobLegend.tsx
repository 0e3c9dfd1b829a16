/** The legend of the log-prob colour scale (viridis, p = 1e-6 .. 1). */
import { MIN_LOG10_P, viridis } from './logprob-scale';

export function LogprobLegend() {
  const stops = Array.from({ length: 9 }, (_, i) => {
    const [r, g, b] = viridis(i / 8);
    return `rgb(${r} ${g} ${b}) ${(i / 8) * 100}%`;
  }).join(', ');
  const ticks = [-6, -4, -2, 0];
  return (
    <figure className="logprob-legend" data-testid="logprob-legend" aria-label="Token probability colour scale">
      <div className="legend-bar" style={{ background: `linear-gradient(to right, ${stops})` }} />
      <div className="legend-ticks">
        {ticks.map((t) => (
          <span key={t} style={{ left: `${((t - MIN_LOG10_P) / -MIN_LOG10_P) * 100}%` }}>
            {t === 0 ? 'p = 1' : `1e${t}`}
          </span>
        ))}
      </div>
      <figcaption className="muted small">
        probability of each sampled token (log scale; viridis, colour-blind safe)
      </figcaption>
    </figure>
  );
}
