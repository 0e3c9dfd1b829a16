/** The machine report (`t1lab doctor`, the System page) and worker status, as plain data. */
import { z } from 'zod';

export const ProviderStatus = z.object({
  name: z.enum(['cpu', 'cuda']),
  available: z.boolean(),
  /** Why it is not available (or a note when it is), always in words a user can act on. */
  reason: z.string().nullable(),
});
export type ProviderStatus = z.infer<typeof ProviderStatus>;

export const GpuInfo = z.object({
  index: z.number().int(),
  name: z.string(),
  memoryBytes: z.number(),
  driverVersion: z.string().nullable(),
});
export type GpuInfo = z.infer<typeof GpuInfo>;

export const DoctorReport = z.object({
  node: z.string(),
  platform: z.string(),
  electron: z.object({ version: z.string().nullable(), binary: z.boolean(), hint: z.string().nullable() }),
  sandbox: z.object({
    backend: z.string(),
    version: z.string().nullable(),
    ok: z.boolean(),
    hint: z.string().nullable(),
  }),
  onnxruntime: z.object({
    version: z.string().nullable(),
    providers: z.array(ProviderStatus),
    hint: z.string().nullable(),
  }),
  cpu: z.object({ cores: z.number().int(), model: z.string() }),
  memoryBytes: z.number(),
  gpus: z.array(GpuInfo),
  dataDir: z.string(),
  /** Container engines (podman, docker): installed, answering, able to start a container, with the fix (additive). */
  containers: z
    .array(
      z.object({
        engine: z.string(),
        installed: z.boolean(),
        version: z.string().nullable(),
        /** A container started on a local image (null: not tried, no local image). */
        canRun: z.boolean().nullable(),
        detail: z.string(),
        hint: z.string().nullable(),
      }),
    )
    .optional(),
  /** Optional parts that are missing, each with how to get it. Empty when everything is present. */
  missing: z.array(z.object({ part: z.string(), hint: z.string() })),
  generatedAt: z.string(),
});
export type DoctorReport = z.infer<typeof DoctorReport>;

export const WorkerState = z.enum(['starting', 'ready', 'crashed', 'restarting', 'stopped', 'failed']);
export type WorkerState = z.infer<typeof WorkerState>;

export const WorkerStatus = z.object({
  name: z.string(),
  state: WorkerState,
  pid: z.number().int().nullable(),
  restarts: z.number().int(),
  /** Why the last process ended (exit code, signal, unresponsive), or null. */
  lastExit: z.string().nullable(),
  since: z.string(),
});
export type WorkerStatus = z.infer<typeof WorkerStatus>;

/** An engine host (`t1lab hosts`) as `hosts check` and the System page show it. */
export const EngineHostReport = z.object({
  name: z.string(),
  url: z.string(),
  slots: z.number().int(),
  enabled: z.boolean(),
  reachable: z.boolean(),
  /** Why the host cannot be used, in words (null when reachable). */
  error: z.string().nullable(),
  engine: z.enum(['podman', 'docker']).nullable(),
  version: z.string().nullable(),
  apiVersion: z.string().nullable(),
  rootless: z.boolean().nullable(),
  cores: z.number().int().nullable(),
  memoryBytes: z.number().nullable(),
  /** This lab install's containers there. */
  labContainers: z.object({ running: z.number().int(), total: z.number().int() }).nullable(),
  /** Task images cached there. */
  taskImages: z.array(z.string()),
  durationMs: z.number(),
});
export type EngineHostReport = z.infer<typeof EngineHostReport>;
