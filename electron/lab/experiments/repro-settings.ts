/**
 * `t1lab repro --settings FILE`: a JSON file of reproduction settings laid over the preset (full, or
 * `--quick`). Only the fields given change; an unknown field or a wrong type is an error naming the file
 * and the field, so a typo never silently runs the default for an hour.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export interface ReproSettings {
  preset: 'nano' | 'micro';
  trainTasks: number;
  /** The families the train pack is drawn from (empty: every family that is not held out). */
  families: string[];
  /** Train tasks (more seeds of the same families) whose first turn alone becomes an SFT sample, made
   * without running anything (`tasks sft-data --first-turns`); 0: none. */
  firstTurnTasks: number;
  /** Copy drills written as SFT samples beside the oracle episodes (`tasks sft-drills`); 0: none. */
  sftDrillSamples: number;
  lmSteps: number;
  sftSteps: number;
  ppoSteps: number;
  /** Steps of the binary-reward PPO run (default: ppoSteps). */
  binarySteps?: number;
  /**
   * The PPO pool probe: this many train tasks per family (a pack of their own), each run `probeAttempts`
   * times by the SFT checkpoint at PPO's temperature; PPO then draws only from families where attempts
   * disagreed (`t1lab tasks pool`). 0: no probe, PPO draws from the whole train pack.
   */
  probeTasksPerFamily: number;
  probeAttempts: number;
  /** Extra `key=value` settings per stage's config (dotted keys: `ppo.group_size=2`; a list for `data.path`). */
  overrides: Record<'lm' | 'sft' | 'ppo', Record<string, OverrideValue>>;
  /** Tasks per eval suite (0: all). */
  evalTasks: number;
  /** Harness limits of the evaluations (a small model that never submits would run to 300 turns). */
  evalArgs: string[];
  /**
   * avg@K: SFT and both PPO runs are also evaluated with this many attempts per task at PPO's sampling
   * temperature (`ppo.temperature`) on `sampledSuites`, and compared paired by task; 0: off.
   */
  sampledAttempts: number;
  /** The suites (by name) of the sampled evaluation; empty: the first suite. */
  sampledSuites: string[];
  seed: number;
}

export type OverrideValue = string | number | boolean | string[];
const scalar = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
const overrides = z.record(z.string(), scalar);

const settingsFile = z
  .object({
    preset: z.enum(['nano', 'micro']),
    trainTasks: z.number().int().positive(),
    families: z.array(z.string().min(1)),
    firstTurnTasks: z.number().int().nonnegative(),
    sftDrillSamples: z.number().int().nonnegative(),
    lmSteps: z.number().int().nonnegative(),
    sftSteps: z.number().int().nonnegative(),
    ppoSteps: z.number().int().positive(),
    binarySteps: z.number().int().positive(),
    probeTasksPerFamily: z.number().int().nonnegative(),
    probeAttempts: z.number().int().min(2),
    overrides: z.object({ lm: overrides, sft: overrides, ppo: overrides }).partial().strict(),
    evalTasks: z.number().int().nonnegative(),
    evalArgs: z.array(z.string()),
    sampledAttempts: z.number().int().nonnegative(),
    sampledSuites: z.array(z.string().min(1)),
    seed: z.number().int().nonnegative(),
  })
  .partial()
  .strict();

export type ReproSettingsFile = z.infer<typeof settingsFile>;

export function readReproSettings(path: string): ReproSettingsFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`--settings ${path}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = settingsFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || '(top level)';
    throw new Error(`--settings ${path}: field '${field}': ${issue.message}`);
  }
  return parsed.data;
}

/** The preset with the file's fields over it; per-stage overrides merge key by key. */
export function applyReproSettings(base: ReproSettings, file: ReproSettingsFile | undefined): ReproSettings {
  if (!file) return base;
  const { overrides: o, ...rest } = file;
  return {
    ...base,
    ...rest,
    overrides: {
      lm: { ...base.overrides.lm, ...o?.lm },
      sft: { ...base.overrides.sft, ...o?.sft },
      ppo: { ...base.overrides.ppo, ...o?.ppo },
    },
  };
}
