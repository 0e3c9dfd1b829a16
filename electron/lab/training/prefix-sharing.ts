/**
 * Which sequences of a micro-batch share a prompt prefix, and how much of it can be forwarded once. The
 * episodes of a PPO group start with the same system prompt, tools and instruction (a quarter to a third
 * of a step's positions); the training graph's shared-prefix mode (prefix-forward.ts) forwards such a
 * prefix once and lets each row attend to it. A prefix is shared only where the math is unchanged: the
 * same input ids and, with R3, the same replayed experts at every prefix position, and no loss position
 * inside it (a prefix row has no head, value or loss of its own).
 */
import type { SharedPrefixBatch } from '../../../native/model/train-step';
import type { TokenSequence } from './batching';

/** Shorter common prefixes are not worth a prefix row. */
export const MIN_SHARED_PREFIX = 32;

export interface PrefixCluster {
  /** Indices into the micro-batch's sequences; the first is the one whose tokens the prefix row holds. */
  members: number[];
  /** Prefix positions forwarded once (the rows' inputs 0..length-1). */
  length: number;
}

/** A micro-batch's shared-prefix layout (see batching's packMicroBatch). */
export interface SharedLayout {
  clusters: PrefixCluster[];
  /** Per sequence: its cluster (index into clusters) or -1, and the prefix positions it skips. */
  clusterOf: number[];
  offsets: number[];
  /** Padded prefix length P, and the rows' padded length T. */
  prefixLength: number;
  rowLength: number;
}

/** Positions before the first loss position (at most n - 1, so that a row keeps at least one of its own). */
export function shareableLength(s: TokenSequence): number {
  const n = s.ids.length - 1;
  const mask = s.tokenInputs.loss_mask;
  let t = 0;
  if (mask) while (t < n && !(mask[t]! > 0)) t++;
  else t = n;
  return Math.min(t, n - 1);
}

/** Input positions 0..c-1 on which the two sequences agree (ids and, where both have them, replayed experts). */
export function commonInputs(a: TokenSequence, b: TokenSequence, limit: number): number {
  let c = 0;
  while (c < limit && a.ids[c] === b.ids[c] && sameRoute(a, b, c)) c++;
  return c;
}

function sameRoute(a: TokenSequence, b: TokenSequence, t: number): boolean {
  if (!a.forcedExperts !== !b.forcedExperts) return false;
  if (!a.forcedExperts || !b.forcedExperts) return true;
  const ra = a.forcedExperts[t]!;
  const rb = b.forcedExperts[t]!;
  for (let l = 0; l < ra.length; l++) {
    const ea = ra[l]!;
    const eb = rb[l]!;
    for (let j = 0; j < ea.length; j++) if (ea[j] !== eb[j]) return false;
  }
  return true;
}

/** The inputs before the first loss position, as a sort key: a PPO group's sequences have the same. */
export function promptKey(s: TokenSequence): string {
  return s.ids.slice(0, shareableLength(s)).join(',');
}

/**
 * The micro-batch's sharing clusters: each sequence joins the first cluster it shares at least
 * MIN_SHARED_PREFIX positions with (its common prefix with the cluster's first sequence bounds the cluster's
 * length); clusters of one sequence are left out.
 */
export function prefixClusters(sequences: readonly TokenSequence[]): PrefixCluster[] {
  const clusters: PrefixCluster[] = [];
  sequences.forEach((s, i) => {
    const limit = shareableLength(s);
    for (const c of clusters) {
      const first = sequences[c.members[0]!]!;
      const common = commonInputs(first, s, Math.min(limit, c.length));
      if (common >= MIN_SHARED_PREFIX) {
        c.members.push(i);
        c.length = common;
        return;
      }
    }
    clusters.push({ members: [i], length: limit });
  });
  return clusters.filter((c) => c.members.length > 1 && c.length >= MIN_SHARED_PREFIX);
}

/** The prefix rows (each cluster's first sequence's first positions), their weights, and each row's place. */
export function prefixBatch(
  sequences: readonly TokenSequence[],
  shared: SharedLayout,
  B: number,
  T: number,
  routing: { layers: number; k: number } | null,
): SharedPrefixBatch {
  const G = shared.clusters.length;
  const P = shared.prefixLength;
  const ids = new BigInt64Array(G * P);
  const weights = new Float32Array(G * P);
  const forced = routing ? new BigInt64Array(routing.layers * G * P * routing.k) : undefined;
  shared.clusters.forEach((c, g) => {
    const first = sequences[c.members[0]!]!;
    for (let t = 0; t < c.length; t++) {
      ids[g * P + t] = BigInt(first.ids[t]!);
      weights[g * P + t] = c.members.length;
      if (forced && first.forcedExperts) {
        const { layers: L, k } = routing!;
        for (let l = 0; l < L; l++)
          for (let j = 0; j < k; j++) forced[((l * G + g) * P + t) * k + j] = BigInt(first.forcedExperts[t]![l]![j]!);
      }
    }
  });
  const rowPrefix = new BigInt64Array(B);
  const prefixLength = new BigInt64Array(B);
  const positions = new BigInt64Array(B * T);
  for (let r = 0; r < B; r++) {
    const off = shared.offsets[r] ?? 0;
    rowPrefix[r] = BigInt(Math.max(0, shared.clusterOf[r] ?? 0));
    prefixLength[r] = BigInt(off);
    for (let t = 0; t < T; t++) positions[r * T + t] = BigInt(off + t);
  }
  return {
    groups: G,
    length: P,
    ids,
    weights,
    rowPrefix,
    prefixLength,
    positions,
    ...(forced ? { forcedExperts: forced } : {}),
  };
}
