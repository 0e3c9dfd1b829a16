/**
 * The training run configuration: one TOML file, validated with zod, every error naming its key (unknown
 * keys are errors). Each stage has its own section in its own file (lm.ts, sft.ts, ppo.ts); the shared
 * sections are in common.ts. Command-line overrides (`--model`, `--data`, `--steps`, `--seed`,
 * `--checkpoint-every`) are applied to the parsed TOML before validation, so they are checked the same way.
 */
import { readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import {
  CheckpointSection,
  DataSection,
  ModelSection,
  OptimizerSection,
  ScheduleSection,
  TrainSection,
} from './common';
import { LmSection } from './lm';
import { PpoSection } from './ppo';
import { SftSection } from './sft';

export const STAGES = ['lm', 'sft', 'ppo'] as const;
export const Stage = z.enum(STAGES);
export type Stage = z.infer<typeof Stage>;

/** A training run's TOML (`t1lab train`, lm / sft / ppo); an evaluation run's settings are EvalRunConfig. */
export const TrainingRunConfig = z.strictObject({
  stage: Stage,
  /** Seeds data order, held-out split and everything random in training. */
  seed: z.number().int().nonnegative().default(0),
  model: ModelSection,
  data: DataSection,
  train: TrainSection.prefault({}),
  optimizer: OptimizerSection.prefault({}),
  schedule: ScheduleSection.prefault({}),
  checkpoint: CheckpointSection.prefault({}),
  lm: LmSection.prefault({}),
  sft: SftSection.prefault({}),
  ppo: PpoSection.prefault({}),
});
export type TrainingRunConfig = z.infer<typeof TrainingRunConfig>;
export type TrainingRunConfigInput = z.input<typeof TrainingRunConfig>;

export class RunConfigError extends Error {
  override readonly name = 'RunConfigError';
}

export interface ConfigOverrides {
  model?: string;
  data?: string;
  steps?: number;
  seed?: number;
  checkpointEvery?: number;
}

/** Each zod issue as "key.path: message"; unknown keys are named one by one. */
export function describeIssues(error: z.ZodError, source: string): string {
  const lines: string[] = [];
  for (const issue of error.issues) {
    const at = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) lines.push(`${at ? `${at}.` : ''}${key}: unknown key`);
    } else lines.push(`${at || '(top level)'}: ${issue.message}`);
  }
  return `${source}: ${lines.join('; ')}`;
}

function applyOverrides(raw: Record<string, unknown>, o: ConfigOverrides): Record<string, unknown> {
  const section = (name: string): Record<string, unknown> => {
    const value = raw[name];
    if (value === undefined) raw[name] = {};
    else if (typeof value !== 'object' || value === null || Array.isArray(value)) return {}; // validation names it
    return raw[name] as Record<string, unknown>;
  };
  if (o.model !== undefined) {
    const m = section('model');
    delete m.preset;
    m.checkpoint = o.model;
  }
  if (o.data !== undefined) section('data').path = o.data;
  if (o.steps !== undefined) section('train').steps = o.steps;
  if (o.seed !== undefined) raw.seed = o.seed;
  if (o.checkpointEvery !== undefined) section('checkpoint').every = o.checkpointEvery;
  return raw;
}

/** Validate a parsed config object (overrides applied first). */
export function parseRunConfig(raw: unknown, source = 'config', overrides: ConfigOverrides = {}): TrainingRunConfig {
  const value =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw)
      ? applyOverrides(structuredClone(raw) as Record<string, unknown>, overrides)
      : raw;
  const parsed = TrainingRunConfig.safeParse(value);
  if (!parsed.success) throw new RunConfigError(describeIssues(parsed.error, source));
  return parsed.data;
}

export function parseRunConfigToml(
  text: string,
  source = 'config.toml',
  overrides: ConfigOverrides = {},
): TrainingRunConfig {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    throw new RunConfigError(`${source}: not valid TOML: ${(error as Error).message.split('\n')[0]}`);
  }
  return parseRunConfig(raw, source, overrides);
}

export function loadRunConfig(path: string, overrides: ConfigOverrides = {}): TrainingRunConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new RunConfigError(`${path}: ${(error as Error).message}`);
  }
  return parseRunConfigToml(text, path, overrides);
}
