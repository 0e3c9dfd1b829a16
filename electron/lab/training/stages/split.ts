/** Held-out split by a hash of each item's key: stable across runs and machines, independent of order. */

export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function isHeldOut(key: string, fraction: number, seed: number): boolean {
  if (fraction <= 0) return false;
  return fnv1a(`${seed}:${key}`) / 2 ** 32 < fraction;
}
