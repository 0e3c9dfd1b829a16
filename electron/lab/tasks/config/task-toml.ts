/**
 * `task.toml`: Harbor's task config (Terminal-Bench 2.x tasks load unchanged) plus T1 Lab's documented
 * extensions (tasks/FORMAT.md): a sandbox environment without Docker and inline verifier assertions.
 * Unknown keys are kept (Harbor adds fields over time; `[metadata]` is free-form).
 */
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import { DeclaredDifficulty } from './difficulty';

/** Harbor's defaults (its TaskConfig), used when a section or key is absent. */
export const DEFAULT_AGENT_TIMEOUT_SEC = 600;
export const DEFAULT_VERIFIER_TIMEOUT_SEC = 600;
export const DEFAULT_CPUS = 1;
export const DEFAULT_MEMORY_MB = 2048;
export const DEFAULT_STORAGE_MB = 10240;
export const DEFAULT_WORKDIR = '/app';

const seconds = z
  .number({ error: 'must be a number of seconds' })
  .positive('must be more than 0 seconds')
  .max(86_400, 'must be at most a day (86400 s)');
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const envTable = z.record(
  z.string().regex(ENV_NAME),
  z.union([z.string(), z.number(), z.boolean()]).transform(String),
  // Only the wrong-type message is ours; key and value problems keep their own messages.
  {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? 'must be a table of NAME = "value"'
        : issue.code === 'invalid_key'
          ? 'is not a valid environment variable name'
          : undefined,
  },
);
/** Sizes as Harbor writes them in `memory` / `storage`: "2G", "512M", "1024" (MiB). */
const sizeString = z.string().regex(/^\s*\d+(\.\d+)?\s*([kKmMgGtT]i?[bB]?)?\s*$/, 'must be a size like "2G" or "512M"');

export function sizeToMb(size: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT])?/.exec(size);
  const value = Number(m?.[1] ?? 0);
  switch ((m?.[2] ?? 'm').toLowerCase()) {
    case 'k':
      return Math.max(1, Math.ceil(value / 1024));
    case 'g':
      return Math.round(value * 1024);
    case 't':
      return Math.round(value * 1024 * 1024);
    default:
      return Math.round(value);
  }
}

export const InlineAssertion = z.strictObject({
  name: z.string({ error: 'each assertion needs a name' }).trim().min(1, 'must not be empty').max(200),
  /** A shell command run with bash in the workdir; exit 0 means passed. */
  run: z.string({ error: 'each assertion needs a `run` shell command' }).min(1, 'must not be empty'),
  /** Per-assertion deadline; defaults to what is left of the verifier's. */
  timeout_sec: seconds.optional(),
});
export type InlineAssertion = z.infer<typeof InlineAssertion>;

export const TaskToml = z.looseObject({
  version: z.string().optional(),
  metadata: z
    .looseObject({
      category: z.string().trim().min(1, 'must not be empty').optional(),
      difficulty: DeclaredDifficulty,
      tags: z.array(z.string(), { error: 'must be a list of strings' }).optional(),
    })
    .prefault({}),
  agent: z.looseObject({ timeout_sec: seconds.default(DEFAULT_AGENT_TIMEOUT_SEC) }).prefault({}),
  verifier: z
    .looseObject({
      timeout_sec: seconds.default(DEFAULT_VERIFIER_TIMEOUT_SEC),
      env: envTable.optional(),
      /** T1 Lab: run tests/test.sh (default true). Import sets false when it only installs pytest from the network. */
      use_test_sh: z.boolean().optional(),
      /** T1 Lab: inline assertions, each a shell check that must exit 0. */
      assertions: z.array(InlineAssertion, { error: 'must be an array of tables: [[verifier.assertions]]' }).optional(),
    })
    .prefault({}),
  environment: z
    .looseObject({
      cpus: z.number().positive('must be more than 0').max(256).optional(),
      memory_mb: z.number().int('must be a whole number of MiB').positive().optional(),
      memory: sizeString.optional(),
      storage_mb: z.number().int('must be a whole number of MiB').positive().optional(),
      storage: sizeString.optional(),
      gpus: z.number().int().min(0).optional(),
      allow_internet: z.boolean().optional(),
      docker_image: z.string().optional(),
      build_timeout_sec: seconds.optional(),
      /** T1 Lab: where the workspace appears in the sandbox (default /app). */
      workdir: z
        .string()
        .regex(/^\/[A-Za-z0-9._/-]*$/, 'must be an absolute path of letters, digits, . _ - /')
        .refine((p) => !p.split('/').includes('..'), 'must not contain ..')
        .refine(
          (p) =>
            !['/', '/tests', '/logs', '/proc', '/dev', '/usr', '/etc', '/tmp', '/environment'].some(
              (r) => p === r || p.startsWith(`${r}/`),
            ),
          'must not be /, a system folder or a verifier mount',
        )
        .optional(),
      /** T1 Lab: where the agent's shell and the oracle start, inside the workdir (a later Dockerfile WORKDIR). */
      start_dir: z
        .string()
        .regex(/^\/[A-Za-z0-9._/-]*$/, 'must be an absolute path of letters, digits, . _ - /')
        .refine((p) => !p.split('/').includes('..'), 'must not contain ..')
        .optional(),
      /** T1 Lab: commands provided by name in the sandbox, e.g. { python = "/usr/bin/python3" } (what a python image has). */
      command_aliases: z
        .record(
          z.string().regex(/^[A-Za-z0-9._+-]+$/, 'must be a command name'),
          z.string().regex(/^\/[^\0]*$/, 'must be an absolute path'),
        )
        .optional(),
      /** T1 Lab: environment variables for the agent's shell and setup.sh. */
      env: envTable.optional(),
      /** T1 Lab: "sandbox" (environment/files + setup.sh) or "container" (needs the image). */
      runtime: z.enum(['sandbox', 'container'], { error: 'must be "sandbox" or "container"' }).optional(),
      /** T1 Lab: why the task needs a container (written by `t1lab tasks import-tb`). */
      container_reason: z.string().optional(),
      /** T1 Lab: commands the task needs on the host system (checked before it runs). */
      requires: z.array(z.string().regex(/^[A-Za-z0-9._+-]+$/, 'must be a command name')).optional(),
    })
    .prefault({}),
  solution: z.looseObject({ env: envTable.optional() }).prefault({}),
});
export type TaskToml = z.infer<typeof TaskToml>;

export type TomlParse = { ok: true; value: TaskToml } | { ok: false; syntax: string | null; issues: z.ZodError | null };

/** Parse and validate; a syntax error names its line and column. */
export function parseTaskToml(text: string): TomlParse {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const first = error.message.split('\n')[0]?.replace(/^Invalid TOML document:\s*/, '') ?? 'invalid TOML';
      return {
        ok: false,
        syntax: `malformed TOML at line ${error.line}, column ${error.column}: ${first}`,
        issues: null,
      };
    }
    return { ok: false, syntax: `malformed TOML: ${(error as Error).message}`, issues: null };
  }
  const parsed = TaskToml.safeParse(raw);
  if (!parsed.success) return { ok: false, syntax: null, issues: parsed.error };
  return { ok: true, value: parsed.data };
}
