/**
 * The registry of task families: the synthesizer's core set plus the second set (more.ts). Names are
 * unique (checked here at load and by test/unit/tasks/families.test.ts).
 */
import { CORE_FAMILIES } from './core';
import { MORE_FAMILIES } from './more';
import type { TaskFamily } from './types';

export const ALL_FAMILIES: TaskFamily[] = [...CORE_FAMILIES, ...MORE_FAMILIES];

/** Names that appear more than once (empty when the registry is sound). */
export function duplicateFamilyNames(families: readonly TaskFamily[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const f of families) (seen.has(f.name) ? dup : seen).add(f.name);
  return [...dup];
}

export function findFamily(name: string): TaskFamily | undefined {
  return ALL_FAMILIES.find((f) => f.name === name);
}

export { CORE_FAMILIES, MORE_FAMILIES };
export { familiesForSplit, seedSplit, EVAL_SEED_MODULUS } from './split';
export { createFamilyRng, familySeed } from './rng';
export * from './types';
