/**
 * The registry of task families: the synthesizer's core set plus the scenario families (scenarios.ts: realistic jobs on project-sized inputs). Names are
 * unique (checked here at load and by test/unit/tasks/families.test.ts).
 */
import { CORE_FAMILIES } from './core';
import { SCENARIO_FAMILIES } from './scenarios';
import type { TaskFamily } from './types';

export const ALL_FAMILIES: TaskFamily[] = [...CORE_FAMILIES, ...SCENARIO_FAMILIES];

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

export { CORE_FAMILIES, SCENARIO_FAMILIES };
export { familiesForSplit, seedSplit, EVAL_SEED_MODULUS } from './split';
export { createFamilyRng, familySeed } from './rng';
export * from './types';
