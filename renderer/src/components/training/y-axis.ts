/**
 * The y axis of a metric chart as pure functions: which scale a series can take (a log scale needs a
 * non-zero value), its range, its ticks (only the labelled ones: no unlabelled minor lines that read as
 * grey bands) and labels with as many digits as the ticks need to tell apart (0.9999, 1, 1.0001, never
 * "1 1 1"), with a real minus sign.
 */

export type YScaleKind = 'linear' | 'log' | 'asinh';

export interface YScalePlan {
  kind: YScaleKind;
  /** asinh only: the magnitude below which the scale is linear (uPlot's `asinh`). */
  linthresh: number;
  /** Why the chart is not on the scale the user asked for (shown in the panel), else null. */
  note: string | null;
}

/** Below this share of the largest magnitude, an arcsinh axis turns linear: three decades stay readable. */
const ASINH_DECADES = 3;

function finite(values: Iterable<number>): number[] {
  const out: number[] = [];
  for (const v of values) if (Number.isFinite(v)) out.push(v);
  return out;
}

const decadeBelow = (v: number) => 10 ** Math.floor(Math.log10(v));

/**
 * The scale for a series: linear unless log is asked; log where every value is positive; arcsinh (log-like
 * away from zero, linear near it) where values reach zero or below; linear with a note where every value
 * is zero (a log of nothing is an empty panel).
 */
export function planYScale(values: Iterable<number>, log: boolean): YScalePlan {
  if (!log) return { kind: 'linear', linthresh: 1, note: null };
  const vs = finite(values);
  const nonZero = vs.filter((v) => v !== 0).map(Math.abs);
  if (!nonZero.length)
    return { kind: 'linear', linthresh: 1, note: vs.length ? 'log scale off: every value is 0' : null };
  if (vs.every((v) => v > 0)) return { kind: 'log', linthresh: 1, note: null };
  const maxAbs = Math.max(...nonZero);
  const minAbs = Math.min(...nonZero);
  return { kind: 'asinh', linthresh: decadeBelow(Math.max(minAbs, maxAbs / 10 ** ASINH_DECADES)), note: null };
}

/** |v| rounded away from zero to 1, 2 or 5 × 10^k, keeping the sign (0 stays 0). */
function niceOutward(v: number, up: boolean): number {
  if (v === 0) return 0;
  const a = Math.abs(v);
  const away = v > 0 === up;
  const d = decadeBelow(a);
  const steps = away ? [1, 2, 5, 10] : [10, 5, 2, 1];
  const m = away ? steps.find((s) => s * d >= a * (1 - 1e-12))! : steps.find((s) => s * d <= a * (1 + 1e-12))!;
  return Math.sign(v) * roundSig(m * d);
}

/** 10 ** -5 is 0.000009999999999999999: keep the intended 1-2-5 value. */
const roundSig = (v: number) => Number(v.toPrecision(12));

/**
 * The y range of a log or arcsinh scale over the shown data [lo, hi]: each end rounded outward to 1, 2 or
 * 5 × 10^k (data near 1e-5 gets a range near 1e-5, not a decade of emptiness beyond it); a constant gets a
 * decade each side.
 */
export function logRange(lo: number, hi: number, kind: 'log' | 'asinh'): [number, number] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return kind === 'log' ? [0.1, 10] : [-1, 1];
  if (lo === hi) {
    if (lo === 0) return [-1, 1];
    return lo > 0 ? [roundSig(lo / 10), roundSig(hi * 10)] : [roundSig(lo * 10), roundSig(hi / 10)];
  }
  return [niceOutward(lo, false), niceOutward(hi, true)];
}

/** Magnitudes 1, 2, 5 × 10^k in [from, to] (both positive), ascending. */
function magnitudes(from: number, to: number, multiples: readonly number[]): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(from)); e <= Math.ceil(Math.log10(to)); e++)
    for (const m of multiples) {
      const v = roundSig(m * 10 ** e);
      if (v >= from * (1 - 1e-9) && v <= to * (1 + 1e-9)) out.push(v);
    }
  return out;
}

/**
 * Ticks of a log (positive) or arcsinh (either sign) axis on [min, max]: 1-2-5 steps when few, decades
 * when more, every other decade when still too many; 0 on an arcsinh axis that spans it. No magnitude
 * below `linthresh` on an arcsinh axis (that part is linear, and 0 labels it).
 */
export function logTicks(
  min: number,
  max: number,
  kind: 'log' | 'asinh',
  linthresh: number,
  maxTicks: number,
): number[] {
  const side = (from: number, to: number): number[][] =>
    to < from
      ? [[], [], []]
      : [
          magnitudes(from, to, [1, 2, 5]),
          magnitudes(from, to, [1]),
          magnitudes(from, to, [1]).filter((_, i, all) => (all.length - 1 - i) % 2 === 0),
        ];
  const floor = kind === 'asinh' ? linthresh : 0;
  const pos = max > 0 ? side(Math.max(floor, kind === 'log' ? min : floor), max) : [[], [], []];
  const neg = min < 0 ? side(Math.max(floor, max < 0 ? -max : floor), -min) : [[], [], []];
  const zero = kind === 'asinh' && min <= 0 && max >= 0 ? [0] : [];
  for (let level = 0; level < 3; level++) {
    const ticks = [...neg[level]!.map((v) => -v).reverse(), ...zero, ...pos[level]!];
    if (ticks.length <= maxTicks || level === 2) return ticks;
  }
  return zero;
}

const MINUS = '\u2212';

/**
 * Labels for a set of ticks: the fewest digits that write every tick exactly (so neighbours never read
 * alike), in exponent form for magnitudes under 1e-3 or from 1e5, with a real minus sign.
 */
export function formatTicks(ticks: readonly (number | null)[]): string[] {
  const shown = ticks.filter((v): v is number => v !== null && Number.isFinite(v));
  const maxAbs = Math.max(0, ...shown.map(Math.abs));
  const exponent = maxAbs >= 1e5 || (maxAbs > 0 && maxAbs < 1e-3);
  const write = (v: number, d: number) => (exponent ? v.toExponential(d).replace('e+', 'e') : v.toFixed(d));
  const exact = (v: number, d: number) => v === 0 || Math.abs(Number(write(v, d)) - v) <= Math.abs(v) * 1e-9;
  let digits = 0;
  while (digits < 15 && !shown.every((v) => exact(v, digits))) digits++;
  return ticks.map((v) => {
    if (v === null || !Number.isFinite(v)) return '';
    if (v === 0) return exponent ? '0' : write(0, digits);
    const text = write(v, digits);
    return v < 0 ? MINUS + text.slice(1) : text;
  });
}
