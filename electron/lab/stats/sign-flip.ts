/**
 * The paired sign-flip permutation test on per-task differences. Under H0 (the two checkpoints are
 * exchangeable on every task) each task's difference B − A is as likely to have either sign, so the
 * reference distribution of |sum of differences| is that over all 2^m sign patterns of the m non-zero
 * differences (zeros change no sum). It assumes nothing about the shape of the differences (shares of K
 * attempts are far from normal at nano scale), and with one attempt per task it is McNemar's exact test.
 */
import { seededUniform } from '../../../native/util/random';

/** Up to this many non-zero differences every sign pattern is enumerated (2^20 ≈ 1M sums, tens of ms). */
export const EXACT_SIGN_FLIP_MAX = 20;
/** Random sign patterns drawn beyond that: the p-value's Monte-Carlo error is at most ~0.0016 (√(p(1−p)/R)). */
export const MONTE_CARLO_SIGN_FLIPS = 100_000;
/** Sums closer than this are ties: shares like 1/3 are not exact in floating point. */
const TIE_TOLERANCE = 1e-9;

export interface SignFlipResult {
  /** Two-sided p-value: the share of sign patterns whose |sum| reaches the observed one. */
  p: number;
  /** Every pattern enumerated (true), or a Monte-Carlo sample with a fixed seed (false). */
  exact: boolean;
  /** Sign patterns counted. */
  permutations: number;
  /** Tasks whose difference is not zero (the others carry no sign). */
  nonZero: number;
}

function exactTest(d: readonly number[], observed: number): SignFlipResult {
  const m = d.length;
  const total = 2 ** m;
  // Gray-code order: each next pattern flips one sign, so its sum is one addition away.
  let sum = d.reduce((a, b) => a + b, 0);
  const signs = new Int8Array(m).fill(1);
  let atLeast = Math.abs(sum) >= observed - TIE_TOLERANCE ? 1 : 0;
  for (let i = 1; i < total; i++) {
    const bit = 31 - Math.clz32(i & -i);
    sum -= 2 * signs[bit]! * d[bit]!;
    signs[bit] = -signs[bit]! as 1 | -1;
    if (Math.abs(sum) >= observed - TIE_TOLERANCE) atLeast++;
  }
  return { p: atLeast / total, exact: true, permutations: total, nonZero: m };
}

function monteCarloTest(d: readonly number[], observed: number, draws: number, seed: number): SignFlipResult {
  const random = seededUniform(seed);
  let atLeast = 0;
  for (let r = 0; r < draws; r++) {
    let sum = 0;
    for (const x of d) sum += random() < 0.5 ? -x : x;
    if (Math.abs(sum) >= observed - TIE_TOLERANCE) atLeast++;
  }
  // The observed pattern counts as one of the draws, so p is never 0 (Phipson & Smyth 2010).
  return { p: (atLeast + 1) / (draws + 1), exact: false, permutations: draws, nonZero: d.length };
}

export function signFlipTest(
  diffs: readonly number[],
  options: { seed?: number; exactMax?: number; draws?: number } = {},
): SignFlipResult {
  const d = diffs.filter((x) => Math.abs(x) > TIE_TOLERANCE);
  if (d.length === 0) return { p: 1, exact: true, permutations: 1, nonZero: 0 };
  const observed = Math.abs(d.reduce((a, b) => a + b, 0));
  if (d.length <= (options.exactMax ?? EXACT_SIGN_FLIP_MAX)) return exactTest(d, observed);
  return monteCarloTest(d, observed, options.draws ?? MONTE_CARLO_SIGN_FLIPS, options.seed ?? 1);
}
