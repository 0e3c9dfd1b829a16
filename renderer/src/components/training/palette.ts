/**
 * Colours that stay distinct for colour-blind readers: Okabe & Ito's eight for runs, and a diverging
 * blue-white-orange scale (no red/green opposition) for the values painted on tokens.
 */
export const RUN_COLOURS = [
  '#56B4E9',
  '#E69F00',
  '#009E73',
  '#CC79A7',
  '#0072B2',
  '#D55E00',
  '#F0E442',
  '#999999',
] as const;

export function runColour(index: number): string {
  return RUN_COLOURS[index % RUN_COLOURS.length]!;
}

/**
 * A run's colour for as long as it exists: by its place among all runs in order of creation, so a run
 * that starts (the newest) takes the next colour and never repaints the runs already on the charts.
 */
export function stableRunColour(runId: string, runs: readonly { id: string; startedAt: string | null }[]): string {
  const order = [...runs].sort(
    (a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? '') || a.id.localeCompare(b.id),
  );
  const i = order.findIndex((r) => r.id === runId);
  return runColour(i < 0 ? order.length : i);
}

/**
 * Category colours of a family chart (`reward_dense/<category>`): Paul Tol's "muted" scheme, safe for
 * colour-blind readers and sharing no colour with RUN_COLOURS, so a category's line never reads as a run.
 */
export const CATEGORY_COLOURS = [
  '#CC6677',
  '#332288',
  '#DDCC77',
  '#117733',
  '#88CCEE',
  '#882255',
  '#44AA99',
  '#999933',
  '#AA4499',
] as const;

export function categoryColour(index: number): string {
  return CATEGORY_COLOURS[index % CATEGORY_COLOURS.length]!;
}

/** Dashes for the 2nd, 3rd, … run on a family chart, where colours stand for categories. */
export const RUN_DASHES: (number[] | undefined)[] = [undefined, [6, 4], [2, 3], [10, 3, 2, 3]];

const BLUE = [33, 102, 172];
const MID = [40, 44, 52]; // the page's background: a zero value does not stand out
const ORANGE = [230, 126, 34];

/** t in [-1, 1] to a colour: -1 blue, 0 neutral, +1 orange. */
export function diverging(t: number): string {
  const x = Math.max(-1, Math.min(1, Number.isFinite(t) ? t : 0));
  const end = x < 0 ? BLUE : ORANGE;
  const a = Math.abs(x);
  const c = MID.map((m, i) => Math.round(m + (end[i]! - m) * a));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

/** t in [0, 1] to a colour on a single-hue (blue) ramp, for one-sided quantities (log-prob as probability). */
export function sequential(t: number): string {
  const x = Math.max(0, Math.min(1, Number.isFinite(t) ? t : 0));
  const c = MID.map((m, i) => Math.round(m + (BLUE[i]! + 40 - m) * x));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}
