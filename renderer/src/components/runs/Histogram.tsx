/** A small SVG histogram (reward, turns, duration of a run's episodes): counts per bin, labelled. */
export function bins(
  values: number[],
  count: number,
  range?: [number, number],
): { lo: number; hi: number; n: number }[] {
  if (!values.length) return [];
  const lo = range?.[0] ?? Math.min(...values);
  const hi = range?.[1] ?? Math.max(...values);
  const width = hi > lo ? (hi - lo) / count : 1;
  const out = Array.from({ length: hi > lo ? count : 1 }, (_, i) => ({
    lo: lo + i * width,
    hi: lo + (i + 1) * width,
    n: 0,
  }));
  for (const v of values) {
    const i = hi > lo ? Math.min(out.length - 1, Math.floor((v - lo) / width)) : 0;
    out[i]!.n++;
  }
  return out;
}

const W = 220;
const H = 90;
const BOTTOM = 28;

export function Histogram({
  title,
  values,
  format,
  count = 8,
  range,
}: {
  title: string;
  values: number[];
  format: (v: number) => string;
  count?: number;
  range?: [number, number];
}) {
  const data = bins(values, count, range);
  const max = Math.max(1, ...data.map((b) => b.n));
  const bw = data.length ? W / data.length : W;
  return (
    <figure className="histogram" data-testid="histogram" data-title={title}>
      <figcaption>{title}</figcaption>
      <svg width={W + 10} height={H + BOTTOM} role="img" aria-label={title}>
        {data.map((b, i) => {
          const h = (b.n / max) * (H - 12);
          return (
            <g key={i}>
              <title>{`${format(b.lo)}–${format(b.hi)}: ${b.n} episode${b.n === 1 ? '' : 's'}`}</title>
              <rect x={5 + i * bw + 1} y={H - h} width={Math.max(1, bw - 2)} height={h} className="bar" />
              {b.n > 0 && (
                <text x={5 + i * bw + bw / 2} y={H - h - 2} textAnchor="middle" className="value-label">
                  {b.n}
                </text>
              )}
            </g>
          );
        })}
        <line x1={5} x2={W + 5} y1={H} y2={H} className="gridline" />
        {data.length > 0 && (
          <>
            <text x={5} y={H + 14} className="axis">
              {format(data[0]!.lo)}
            </text>
            <text x={W + 5} y={H + 14} textAnchor="end" className="axis">
              {format(data[data.length - 1]!.hi)}
            </text>
          </>
        )}
      </svg>
    </figure>
  );
}
