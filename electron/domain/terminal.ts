/**
 * Sandboxed terminals as plain data: limits, what a terminal is, and the events that stream its bytes.
 * The limit ranges mirror native/sandbox/limits.ts (a unit test keeps them equal).
 */
import { z } from 'zod';

const int = (min: number, max: number) => z.number().int().min(min).max(max);

export const SandboxLimitsSchema = z.object({
  processes: int(8, 32_768),
  memoryMb: int(32, 1_048_576),
  fileSizeMb: int(1, 1_048_576),
  openFiles: int(16, 1_048_576),
  cpuSeconds: int(1, 604_800),
  workspaceMb: int(1, 16_777_216),
  tmpMb: int(1, 1_048_576),
  wallSeconds: int(0, 604_800),
});
export type SandboxLimitsData = z.infer<typeof SandboxLimitsSchema>;
export const PartialLimitsSchema = SandboxLimitsSchema.partial();

export const LimitNameSchema = z.enum([
  'processes',
  'memoryMb',
  'fileSizeMb',
  'openFiles',
  'cpuSeconds',
  'workspaceMb',
  'tmpMb',
  'wallSeconds',
  'output',
]);
export type LimitNameData = z.infer<typeof LimitNameSchema>;

export const TerminalSize = { cols: int(2, 1000), rows: int(1, 500) };

/** How each limit is enforced on the host (from the sandbox backend), for the panel beside the terminal. */
export const EnforcementSchema = z.object({
  cgroup: z.enum(['cgroup-v2', 'cgroup-v1', 'none']),
  cgroupReason: z.string(),
  limits: z.record(z.string(), z.string()),
  network: z.string(),
});
export type EnforcementData = z.infer<typeof EnforcementSchema>;

export const TerminalExit = z.object({ exitCode: z.number().int().nullable(), limit: LimitNameSchema.nullable() });

export const TerminalInfo = z.object({
  id: z.string(),
  /** Host path of the workspace (mounted read-write at `workdir`). */
  workspace: z.string(),
  workdir: z.string(),
  /** A fresh workspace made for this terminal and removed when it closes. */
  temporary: z.boolean(),
  net: z.boolean(),
  limits: SandboxLimitsSchema,
  cols: z.number().int(),
  rows: z.number().int(),
  recordingPath: z.string().nullable(),
  openedAt: z.string(),
  state: z.enum(['running', 'exited']),
  exit: TerminalExit.nullable(),
});
export type TerminalInfo = z.infer<typeof TerminalInfo>;

export const TerminalOpenInput = z.object({
  /** Host directory to mount; omitted: a fresh empty temporary one. */
  workspace: z.string().min(1).max(4096).optional(),
  net: z.boolean().default(false),
  limits: PartialLimitsSchema.default({}),
  cols: TerminalSize.cols.default(160),
  rows: TerminalSize.rows.default(40),
  /** Record an asciicast v2 file under the data dir. */
  record: z.boolean().default(false),
  /** Start from this task's environment (its files and setup) in a fresh temporary workspace. */
  task: z.object({ source: z.string().min(1).max(300), id: z.string().min(1).max(200) }).optional(),
});

export const TerminalDefaults = z.object({
  limits: SandboxLimitsSchema,
  sandbox: z.object({
    backend: z.string(),
    version: z.string().nullable(),
    ok: z.boolean(),
    hint: z.string().nullable(),
  }),
  enforcement: EnforcementSchema.nullable(),
});
export type TerminalDefaults = z.infer<typeof TerminalDefaults>;

/** Largest chunk of input one call may carry (a paste). */
export const MAX_INPUT_CHARS = 1_000_000;

export const TerminalDataEvent = z.object({ id: z.string(), data: z.string() });
export const TerminalExitEvent = TerminalExit.extend({ id: z.string() });
export const TerminalLimitEvent = z.object({ id: z.string(), limit: LimitNameSchema, message: z.string() });
