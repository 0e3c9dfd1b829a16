/** What the lab's static SVG charts share (reports, the repro and ablation reports): escaping, tick values, colours. */

/** Okabe-Ito, safe for colour-blind readers. */
export const OKABE_ITO = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];

/** Text and attribute values inside SVG/HTML. */
export const escapeXml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** About `count` round tick values (steps of 1, 2 or 5 times a power of ten) from lo to hi. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (hi <= lo) return [lo];
  const step = 10 ** Math.floor(Math.log10((hi - lo) / count));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => (hi - lo) / s <= count) ?? step * 10;
  const out: number[] = [];
  for (let t = Math.ceil(lo / nice) * nice; t <= hi + 1e-12; t += nice) out.push(Number(t.toPrecision(12)));
  return out;
}
