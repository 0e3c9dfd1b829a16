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
  /** Host directory mounted read-write as the working directory (must exist and be a directory). */
  workspace: string;
  /** Where the workspace appears inside (default /app). */
  workdir?: string;
  /** Extra mounts: the verifier's /tests (read-only) and /logs/verifier, for example. */
  mounts?: Mount[];
  /** Environment beyond the scrubbed base (PATH, HOME, TERM, LANG, USER, SHELL); may override PATH/TERM/LANG. */
  env?: Record<string, string>;
  /** Network access: false = own empty net namespace (no loopback services of the host either). */
  net: boolean;
  limits: SandboxLimits;
  /** Where the command starts when not the workdir (inside it; must exist). Additive. */
  cwd?: string;
  /**
   * Commands to provide by name (e.g. `python` -> `/usr/bin/python3`, as a python base image would): links
   * in a private folder put first on PATH. Additive; bubblewrap only (a container has its image's).
   */
  commandAliases?: Record<string, string>;
  /** Container backends only (podman/docker): the image and what to do with the container's state (additive). */
  container?: ContainerSpec;
}

/** How a container backend runs a spec. The image's own WORKDIR, USER and ENV apply unless overridden. */
export interface ContainerSpec {
  image: string;
  /** Commit the container's final file system to this tag when the command (or shell) ends: the next phase starts from it. */
  commitTo?: string;
  /** Mount the spec's workspace at its workdir (false: the image's own workdir content is the workspace). */
  bindWorkspace?: boolean;
  /** CPUs for the whole container (`--cpus`), or none. */
  cpus?: number;
  /** Run as this user instead of the image's USER. */
  user?: string;
  /** Network mode when `net` is true (default: the engine's bridge). */
  networkMode?: string;
}

export interface RunOptions {
  stdin?: string;
  signal?: AbortSignal;
  /** Streamed output, as it arrives. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: string) => void;
  /** Keep at most this many chars of each stream (head and tail kept, the cut noted). */
  maxOutputChars?: number;
  /**
   * Start the sandbox now, let the command proceed later (bubblewrap only; issue 16: the verifier's pytest
   * imports itself while the agent still works). Until the gate opens the command gets no stdin, no wall
   * clock, no host monitor and no `signal`/`stdin` of these options: the opening brings them, and the
   * workspace allowance is measured then. `null` stops the command unstarted (the result says aborted).
   * The rlimits and the cgroup apply from the start.
   */
  gate?: Promise<RunGateOpen | null>;
}

/** What a gated run gets when its gate opens (see RunOptions.gate). */
export interface RunGateOpen {
  stdin: string;
  /** The wall-clock deadline from the opening (seconds; replaces limits.wallSeconds). */
  wallSeconds: number;
  signal?: AbortSignal;
}

export interface RunResult {
  /** The command's exit code; null when it was killed by a signal. */
  exitCode: number | null;
  /** The signal that ended it ('SIGKILL', 'SIGXCPU', ...), or null. */
  signal: string | null;
  /** The wall-clock deadline (limits.wallSeconds) fired and the sandbox was killed. */
  timedOut: boolean;
  /**
   * The limit that fired, by name, or null: the one that stopped the command if one did, else one that was
   * hit while it ran (e.g. 'output' when the output was cut, 'processes' when forks were refused).
   */
  limit: LimitName | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  /** Every limit observed to fire, in order (additive; `limit` is the decisive one). */
  limitsHit?: LimitName[];
  /** The caller aborted (RunOptions.signal) and the sandbox was killed. */
  aborted?: boolean;
  /** A gated run (RunOptions.gate) that ended, or was stopped, before its gate opened. */
  beforeGate?: boolean;
  /** Chars cut from the middle of stdout / stderr (head and tail kept). */
  truncatedChars?: { stdout: number; stderr: number };
}

/** A limit that fired inside a running pty sandbox (the offending processes were stopped, the shell lives on). */
export interface LimitEvent {
  limit: LimitName;
  /** What happened, in words (also written to the terminal as a notice line). */
  message: string;
  /** Sandbox-side pids that were killed (empty when the whole sandbox was). */
  killed: number[];
}

/** A process with a terminal, for interactive shells (node-pty underneath). */
export interface PtyProcess {
  readonly pid: number;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Output as it arrives; exit is reported only after the output has drained (never rely on exit ordering). */
  onData(listener: (data: string) => void): { dispose(): void };
  onExit(listener: (exit: { exitCode: number; signal: number | null; limit: LimitName | null }) => void): {
    dispose(): void;
  };
  /**
   * The sandbox's processes are gone (reported before the output drain that precedes onExit): what they
   * wrote is final. Additive; without it, onExit is the first sign.
   */
  onGone?(listener: () => void): { dispose(): void };
  /** A limit fired and its offender was stopped while the sandbox keeps running (additive). */
  onLimit?(listener: (event: LimitEvent) => void): { dispose(): void };
  /**
   * The sandbox-side process blocked reading the terminal right now (a command waiting for typed input;
   * the shell itself at its prompt too: the caller knows when a command runs), or null. Additive: backends
   * that cannot see their processes leave it out, and a waiting command runs into its timeout.
   */
  terminalReader?(): number | null;
  pause(): void;
  resume(): void;
  /** Kill the whole sandbox tree. */
  kill(): void;
}

/** The lab's interactive shell (bash) as `spawnShell` starts it. */
export interface ShellStart {
  /** bash commands the shell runs at start-up, before its first prompt (after the backend's own first lines). */
  rc: string;
}

/** How each limit is enforced on this machine (kernel rlimit, cgroup, or the host-side monitor). */
export interface Enforcement {
  /** 'cgroup-v2' | 'cgroup-v1' when a cgroup caps memory and processes for the whole sandbox, else 'rlimit'. */
  cgroup: 'cgroup-v2' | 'cgroup-v1' | 'none';
  /** Why cgroups are or are not used, in words. */
  cgroupReason: string;
  limits: Record<keyof SandboxLimits, string>;
  /** Network when `net: true`: how it is provided and what it exposes. */
  network: string;
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
  /** How each limit is enforced here (for the UI and `t1lab doctor`); additive, optional. */
  enforcement?(): Promise<Enforcement>;
  /** Run one command to completion (or its limits / deadline / abort). */
  run(spec: SandboxSpec, argv: string[], options?: RunOptions): Promise<RunResult>;
  /** Start an interactive process on a pty inside a sandbox. */
  spawnPty(spec: SandboxSpec, argv: string[], size: { cols: number; rows: number }): Promise<PtyProcess>;
  /**
   * Start the lab's interactive bash on a pty inside a sandbox, running `shell.rc` at start-up. Same
   * containment as `spawnPty`; a backend may start it faster, knowing what runs (additive, optional:
   * callers fall back to `spawnPty` with their own rc file).
   */
  spawnShell?(spec: SandboxSpec, shell: ShellStart, size: { cols: number; rows: number }): Promise<PtyProcess>;
}
