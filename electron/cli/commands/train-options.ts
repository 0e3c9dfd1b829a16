/** The options every `t1lab train STAGE` takes on top of its config file, and the overrides they make. */
import { resolve } from 'node:path';
import type { ConfigOverrides } from '../../lab/training/config/run-config';
import { UsageError } from '../errors';
import { isBuiltinCorpus } from '../../lab/training/corpus/names';

export interface StageOptions {
  config?: string;
  out?: string;
  resume?: string;
  json?: boolean;
  model?: string;
  data?: string;
  steps?: string;
  seed?: string;
  checkpointEvery?: string;
}

function int(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${name}: '${value}' is not an integer >= ${min}`);
  return n;
}

export function overridesOf(o: StageOptions): ConfigOverrides {
  return {
    ...(o.model !== undefined ? { model: resolve(o.model) } : {}),
    ...(o.data !== undefined ? { data: isBuiltinCorpus(o.data) ? o.data : resolve(o.data) } : {}),
    ...(o.steps !== undefined ? { steps: int('--steps', o.steps, 1) } : {}),
    ...(o.seed !== undefined ? { seed: int('--seed', o.seed, 0) } : {}),
    ...(o.checkpointEvery !== undefined ? { checkpointEvery: int('--checkpoint-every', o.checkpointEvery, 1) } : {}),
  };
}
