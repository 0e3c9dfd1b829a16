/**
 * The seeded randomness every family draws from (FamilyRng): one SplitMix32 stream per task, so a seed
 * names a task exactly. `familySeed` mixes the family's name into the seed, so seed 7 of two families are
 * unrelated draws.
 */
import { seededUniform } from '../../native/util/random';
import type { FamilyRng } from './types';

const ALPHA = 'abcdefghijklmnopqrstuvwxyz';
const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function createFamilyRng(seed: number): FamilyRng {
  const u = seededUniform(seed);
  const int = (min: number, max: number) => min + Math.floor(u() * (max - min + 1));
  const shuffle = <T>(items: readonly T[]): T[] => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = int(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  return {
    next: u,
    int,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(0, items.length - 1)]!;
    },
    sample: (items, k) => {
      if (k > items.length) throw new Error(`cannot sample ${k} of ${items.length} items`);
      return shuffle(items).slice(0, k);
    },
    shuffle,
    bool: (p = 0.5) => u() < p,
    word: (len = 6) => {
      let s = ALPHA[int(0, 25)]!;
      for (let i = 1; i < len; i++) s += ALNUM[int(0, 35)]!;
      return s;
    },
  };
}

/** FNV-1a of the family name mixed with the seed: distinct families get unrelated streams for one seed. */
export function familySeed(familyName: string, seed: number): number {
  let h = 0x811c9dc5;
  for (const ch of `${familyName}#${seed}`) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
