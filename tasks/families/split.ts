/**
 * The split rule, fixed in code so that a training corpus and an eval suite can never share a task:
 *
 * - out of distribution: a family with `heldOut: true` is never used for training (`synth --split train`
 *   refuses it); its tasks only appear in eval suites such as nano-bench.
 * - in distribution: for the other families, seed indices are split by a hash of (family, index):
 *   one index in EVAL_SEED_MODULUS is eval, the rest train. The family also receives `split`, and the
 *   core families keep their last phrasing for eval (core/kit.ts `phrase`). An eval suite of a train
 *   family therefore has seeds - and, for core families, phrasings - the training corpus never saw.
 */
import { familySeed } from './rng';
import type { Split, TaskFamily } from './types';

/** One seed index in 8 belongs to eval. */
export const EVAL_SEED_MODULUS = 8;

/** Which split a family's seed index belongs to (independent of the synth's --seed). */
export function seedSplit(family: string, index: number): Split {
  return familySeed(`${family}/split`, index) % EVAL_SEED_MODULUS === 0 ? 'eval' : 'train';
}

/** Families a split may draw from: train excludes held-out families; eval takes them all. */
export function familiesForSplit(families: readonly TaskFamily[], split: Split): TaskFamily[] {
  return split === 'train' ? families.filter((f) => !f.heldOut) : [...families];
}
