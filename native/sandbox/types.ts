/**
 * The sandbox contract every backend implements (bubblewrap here; docker/podman where an engine runs).
 * Plain data in, plain data out: the task layer, the harness and the CLI depend on this file only.
 */

/** Limits a sandbox enforces. Each one that fires is reported by name (`LimitName`). */
export interface SandboxLimits {
  /** Max processes/threads of the sandbox's user (fork bombs stop here). */
  processes: number;
  /** Address-space / memory cap per process tree, MiB. */
  memoryMb: number;
  /** Largest file a process may write, MiB. */
  fileSizeMb: number;
  openFiles: number;
  /** CPU seconds per process. */
  cpuSeconds: number;
  /** Total size of the workspace; exceeding it stops the offender. MiB. */
  workspaceMb: number;
  /** Size of the tmpfs at /tmp, MiB. */
  tmpMb: number;
  /** Wall-clock deadline for the whole sandbox tree, seconds (0 = none). */
  wallSeconds: number;
}

export type LimitName = keyof SandboxLimits | 'output';

export interface Mount {
  /** Host path (must exist). */
  host: string;
  /** Path inside the sandbox. */
  sandbox: string;
  readOnly: boolean;
}

export interface SandboxSpec {
  /** Host directory mounted read-write as the working directory. */
  workspace: string;
  /** Where the workspace appears inside (default /app). */
  workdir?: string;
  /** Extra mounts: the verifier's /tests (read-only) and /logs/verifier, for example. */
  mounts?: Mount[];
  /** Environment beyond the scrubbed base (PATH, HOME, TERM, LANG). */
  env?: Record<string, string>;
  /** Network access: false = own empty net namespace (no loopback services of the host either). */
  net: boolean;
  limits: SandboxLimits;
}

export interface RunOptions {
  stdin?: string;
  signal?: AbortSignal;
  /** Streamed output, as it arrives. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: string) => void;
  /** Keep at most this many chars of each stream (head and tail kept, the cut noted). */
  maxOutputChars?: number;
}

export interface RunResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** The limit that fired, by name, or null. */
  limit: LimitName | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

/** A process with a terminal, for interactive shells (node-pty underneath). */
export interface PtyProcess {
  readonly pid: number;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  onData(listener: (data: string) => void): { dispose(): void };
  onExit(listener: (exit: { exitCode: number; signal: number | null; limit: LimitName | null }) => void): { dispose(): void };
  pause(): void;
  resume(): void;
  /** Kill the whole sandbox tree. */
  kill(): void;
}

export interface BackendStatus {
  name: string;
  available: boolean;
  version: string | null;
  /** What to do when unavailable. */
  hint: string | null;
}

export interface SandboxBackend {
  readonly name: 'bubblewrap' | 'docker' | 'podman';
  status(): Promise<BackendStatus>;
  /** Run one command to completion (or its limits / deadline / abort). */
  run(spec: SandboxSpec, argv: string[], options?: RunOptions): Promise<RunResult>;
  /** Start an interactive process on a pty inside a sandbox. */
  spawnPty(spec: SandboxSpec, argv: string[], size: { cols: number; rows: number }): Promise<PtyProcess>;
}
