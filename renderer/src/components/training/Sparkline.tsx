/**
 * A tiny inline chart of a few series on a 0..1 scale (pass rates, resolved shares) over the same steps;
 * gaps (null: not sampled at that step) are skipped, not drawn as zeros. Big enough to show a trend in a
 * table cell; the numbers sit next to it.
 */
interface Line {
  values: readonly (number | null)[];
  colour: string;
  label: string;
}

const WIDTH = 120;
const HEIGHT = 24;
const PAD = 2;

function points(values: readonly (number | null)[], max: number): string {
  const n = values.length;
  const x = (i: number) => PAD + (n > 1 ? (i * (WIDTH - 2 * PAD)) / (n - 1) : (WIDTH - 2 * PAD) / 2);
  const y = (v: number) => HEIGHT - PAD - (Math.max(0, Math.min(max, v)) / max) * (HEIGHT - 2 * PAD);
  return values.flatMap((v, i) => (v === null ? [] : [`${x(i).toFixed(1)},${y(v).toFixed(1)}`])).join(' ');
}

export function Sparkline({ lines, max = 1, testId }: { lines: readonly Line[]; max?: number; testId?: string }) {
  return (
    <svg
      className="sparkline"
      width={WIDTH}
      height={HEIGHT}
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-label={lines.map((l) => l.label).join(' vs ')}
      data-testid={testId}
    >
      <line x1={PAD} x2={WIDTH - PAD} y1={HEIGHT - PAD} y2={HEIGHT - PAD} className="sparkline-axis" />
      {lines.map((l) => (
        <polyline key={l.label} points={points(l.values, max)} fill="none" stroke={l.colour} strokeWidth={1.5}>
          <title>{l.label}</title>
        </polyline>
      ))}
    </svg>
  );
}
