/**
 * Target mixes for `tasks rebalance`: uniform over the categories present, Terminal-Bench 2's mix, or a
 * JSON file `{"categories": {NAME: weight}, "difficulties": {NAME: weight}}` (either part optional).
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { LabError } from '../../../ipc/common/errors';

export interface TargetMix {
  /** Weights (any scale); null: keep the source's proportions. */
  categories: Record<string, number> | null;
  difficulties: Record<string, number> | null;
}

/**
 * Terminal-Bench 2.0 (89 tasks): 4 easy, 55 medium, 30 hard; software-engineering 26,
 * system-administration 9, scientific-computing, security and data-science 8 each, debugging and
 * file-operations 5 each (shared/REFERENCE.md); the remaining 20 spread over its other categories.
 */
export const TB2_MIX: TargetMix = {
  categories: {
    'software-engineering': 26,
    'system-administration': 9,
    'scientific-computing': 8,
    security: 8,
    'data-science': 8,
    debugging: 5,
    'file-operations': 5,
    'data-processing': 4,
    'model-training': 4,
    mathematics: 3,
    'machine-learning': 3,
    games: 2,
    'text-processing': 1,
    'version-control': 1,
    networking: 1,
    'personal-assistant': 1,
  },
  difficulties: { easy: 4, medium: 55, hard: 30 },
};

const Weights = z.record(z.string(), z.number().nonnegative());
const TargetFile = z.strictObject({ categories: Weights.optional(), difficulties: Weights.optional() });

export async function loadTarget(spec: string, presentCategories: readonly string[]): Promise<TargetMix> {
  if (spec === 'tb2') return TB2_MIX;
  if (spec === 'uniform')
    return { categories: Object.fromEntries(presentCategories.map((c) => [c, 1])), difficulties: null };
  const text = await readFile(spec, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new LabError(
      'INVALID_PARAMS',
      `--target: '${spec}' is not uniform, tb2 or a readable JSON file (${error.code ?? error.message})`,
    );
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new LabError('INVALID_PARAMS', `${spec}: not valid JSON: ${(error as Error).message}`);
  }
  const parsed = TargetFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new LabError(
      'INVALID_PARAMS',
      `${spec}: ${issue.path.join('.') || '(top level)'}: ${issue.message} (expected {"categories": {NAME: weight}, "difficulties": {NAME: weight}})`,
    );
  }
  return { categories: parsed.data.categories ?? null, difficulties: parsed.data.difficulties ?? null };
}
