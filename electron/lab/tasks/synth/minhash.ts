/**
 * MinHash signatures of shingle sets: the estimated Jaccard similarity of two sets is the share of
 * positions where their signatures agree. 128 hash functions give an estimate within about ±0.09 (2 sigma).
 */
export const SIGNATURE_SIZE = 128;

/** 32-bit FNV-1a of a string. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// Fixed odd multipliers and offsets for the k hash functions h_k(x) = (a_k * x + b_k) mod 2^32 (xorshifted).
const A = new Uint32Array(SIGNATURE_SIZE);
const B = new Uint32Array(SIGNATURE_SIZE);
{
  let s = 0x9e3779b9;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  };
  for (let k = 0; k < SIGNATURE_SIZE; k++) {
    A[k] = next() | 1;
    B[k] = next();
  }
}

/** The signature of a set of shingles; null for an empty set (similar to nothing). */
export function minhash(shingles: Iterable<string>): Uint32Array | null {
  const sig = new Uint32Array(SIGNATURE_SIZE).fill(0xffffffff);
  let any = false;
  for (const s of shingles) {
    any = true;
    const x = hash32(s);
    for (let k = 0; k < SIGNATURE_SIZE; k++) {
      const m = (Math.imul(A[k]!, x) + B[k]!) >>> 0;
      const h = (m ^ (m >>> 16)) >>> 0;
      if (h < sig[k]!) sig[k] = h;
    }
  }
  return any ? sig : null;
}

export function estimatedJaccard(a: Uint32Array | null, b: Uint32Array | null): number {
  if (!a || !b) return 0;
  let same = 0;
  for (let k = 0; k < SIGNATURE_SIZE; k++) if (a[k] === b[k]) same++;
  return same / SIGNATURE_SIZE;
}

/** Word n-grams of a text (lowercased, punctuation dropped): the shingles of an instruction. */
export function wordShingles(text: string, n = 3): Set<string> {
  const words = text
    .toLowerCase()
    .split(/[^a-z0-9_./-]+/)
    .filter(Boolean);
  const out = new Set<string>();
  if (words.length < n) {
    if (words.length) out.add(words.join(' '));
    return out;
  }
  for (let i = 0; i + n <= words.length; i++) out.add(words.slice(i, i + n).join(' '));
  return out;
}
