/**
 * Default limits and their validation. Defaults suit an agent episode on a workstation: enough for pip,
 * compilers and test suites; small enough that a runaway program cannot hurt the host.
 */
import { SandboxError } from './errors';
import type { LimitName, SandboxLimits } from './types';

const DEFAULTS: SandboxLimits = {
  processes: 256,
  memoryMb: 2048,
  fileSizeMb: 1024,
  openFiles: 1024,
  cpuSeconds: 600,
  workspaceMb: 2048,
  tmpMb: 512,
  wallSeconds: 900,
};

/** Allowed range of each limit (inclusive); wallSeconds 0 means no deadline. */
export const LIMIT_RANGES: Record<keyof SandboxLimits, { min: number; max: number; unit: string; label: string }> = {
  processes: { min: 8, max: 32_768, unit: 'processes', label: 'processes and threads' },
  memoryMb: { min: 32, max: 1_048_576, unit: 'MiB', label: 'memory' },
  fileSizeMb: { min: 1, max: 1_048_576, unit: 'MiB', label: 'largest file' },
  openFiles: { min: 16, max: 1_048_576, unit: 'files', label: 'open files per process' },
  cpuSeconds: { min: 1, max: 604_800, unit: 's', label: 'CPU time per process' },
  workspaceMb: { min: 1, max: 16_777_216, unit: 'MiB', label: 'workspace size' },
  tmpMb: { min: 1, max: 1_048_576, unit: 'MiB', label: '/tmp size' },
  wallSeconds: { min: 0, max: 604_800, unit: 's', label: 'wall-clock deadline' },
};

/** A fresh copy of the default limits, with `overrides` applied and checked. */
export function defaultLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  return validateLimits({ ...DEFAULTS, ...stripUndefined(overrides) });
}

/** Throws BAD_SPEC naming the field and value when a limit is not an integer in its range. */
export function validateLimits(limits: SandboxLimits): SandboxLimits {
  for (const [name, range] of Object.entries(LIMIT_RANGES) as [
    keyof SandboxLimits,
    (typeof LIMIT_RANGES)[keyof SandboxLimits],
  ][]) {
    const value = limits[name];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min || value > range.max) {
      throw new SandboxError(
        'BAD_SPEC',
        `limits.${name}: ${String(value)} is not an integer between ${range.min} and ${range.max} (${range.unit})`,
      );
    }
  }
  return limits;
}

/** Human words for a limit that fired, e.g. "memory (2048 MiB)". */
export function describeLimit(name: LimitName, limits?: SandboxLimits): string {
  if (name === 'output') return 'output cap';
  const range = LIMIT_RANGES[name];
  return limits ? `${range.label} (${limits[name]} ${range.unit})` : range.label;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
