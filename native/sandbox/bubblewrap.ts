/**
 * The bubblewrap backend: each sandbox is a bwrap process tree (see bwrap-args.ts for what it sees),
 * capped by rlimits (RLIMIT_NPROC set inside its user namespace), a cgroup where one can be made
 * (cgroups.ts), and the host-side monitor (monitor.ts); a wall-clock timer kills the whole tree.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import type * as Pty from 'node-pty';
import { nodePty } from './lazy-pty';
import { HeadTail } from '../util/head-tail';
import {
  ALIAS_DIR,
  baseEnv,
  DEFAULT_WORKDIR,
  effectiveFileSizeMb,
  LAUNCHER_ENV,
  launchCommand,
  MIB,
  type LaunchPlan,
} from './bwrap-args';
import { cgroupSupport, createSandboxCgroup, type SandboxCgroup } from './cgroups';
import { childEnded, type ChildEnd } from './child-exit';
import { detectBubblewrap, type BubblewrapStatus } from './detect';
import { SandboxError } from './errors';
import { describeLimit, validateLimits } from './limits';
import { decodeOutput } from './output-decoding';
import { watchSandbox, type LimitFired } from './monitor';
import { pidCapAvailable, pidMaxFor, RESERVED_PIDS } from './pid-cap';
import { killTreeNow, processTree } from './proc';
import { terminalReader } from './terminal-reader';
import { runtimeFiles, shellRcFile } from './runtime-files';
import { SandboxPty, type PtyExit } from './sandbox-pty';
import type {
  BackendStatus,
  Enforcement,
  LimitName,
  PtyProcess,
  RunGateOpen,
  RunOptions,
  RunResult,
  SandboxBackend,
  SandboxLimits,
  SandboxSpec,
  ShellStart,
} from './types';
import { checkSpecPaths, defaultProtectedPaths } from './workspace';
import { smallTreeUsage, treeUsage } from './workspace-size';

/** Default cap per stream for `run` when the caller sets none. */

export const DEFAULT_RUN_OUTPUT_CHARS = 1_000_000;
/** How long a run's output may stay open after bwrap has exited (its last writes drain in milliseconds). */
const STDIO_GRACE_MS = 5_000;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** How programs say an allocation failed (Python, glibc/strerror, C++, Node/V8, Java, Go). */
const OUT_OF_MEMORY =
  /MemoryError|Cannot allocate memory|out of memory|std::bad_alloc|allocation failed|OutOfMemoryError|ENOMEM/i;

export interface BubblewrapOptions {
  /** Paths no sandbox may expose (default: home directories, the data dir, the checkout). */
  protectedPaths?: string[];
  /** Turn cgroups off even where they are usable (tests compare both paths). */
  cgroups?: boolean;
}

interface Prepared {
  plan: LaunchPlan;
  cgroup: SandboxCgroup | null;
  status: BubblewrapStatus;
  /** Known before the sandbox starts: a command may write at once. */
  workspaceAllowance: number;
}

/** The workspace cap, or the workspace's size at start if it is already bigger (it may not grow then). */
async function workspaceAllowance(workspace: string, limits: SandboxLimits): Promise<number> {
  const cap = limits.workspaceMb * MIB;
  const small = smallTreeUsage(workspace, cap);
  if (small !== null && small <= cap) return cap;
  const quick = await treeUsage(workspace, cap);
  if (quick.bytes <= cap) return cap;
  return (await treeUsage(workspace)).bytes;
}

const SIGNAL_NAMES = new Map<number, string>(Object.entries(osConstants.signals).map(([name, n]) => [n, name]));

export class BubblewrapBackend implements SandboxBackend {
  readonly name = 'bubblewrap' as const;
  private readonly protectedPaths: string[];

  constructor(private readonly options: BubblewrapOptions = {}) {
    this.protectedPaths = options.protectedPaths ?? defaultProtectedPaths();
  }

  async status(): Promise<BackendStatus> {
    const s = await detectBubblewrap();
    return { name: 'bubblewrap', available: s.ok, version: s.version, hint: s.hint };
  }

  async enforcement(): Promise<Enforcement> {
    const cg = cgroupSupport({ disable: this.options.cgroups === false });
    const root = process.getuid?.() === 0;
    const withCg = cg.kind !== 'none';
    const pidCap = !withCg && (await pidCapAvailable()) !== null;
    return {
      cgroup: cg.kind,
      cgroupReason: cg.reason,
      limits: {
        processes: withCg
          ? `${cg.kind} pids.max for the whole sandbox${root ? '' : ' and RLIMIT_NPROC'}; a tree pinned at the cap is stopped`
          : root
            ? pidCap
              ? `the pid_max of a pid namespace around the sandbox (processes + ${RESERVED_PIDS + 3}: the kernel does not apply RLIMIT_NPROC to the host root user); the monitor stops the sandbox above the cap`
              : 'host-side monitor only: the kernel does not apply RLIMIT_NPROC to the host root user, and this kernel has no per-namespace pid_max (Linux 6.14+; run the lab as a normal user, or where cgroups work)'
            : 'RLIMIT_NPROC inside the user namespace (counts only the sandbox); a tree pinned at the cap is stopped',
        memoryMb: withCg
          ? `${cg.kind} memory limit for the whole sandbox; an OOM kill is reported`
          : 'RLIMIT_AS per process, plus the monitor: the sum over the sandbox above the cap stops the largest process',
        fileSizeMb: 'RLIMIT_FSIZE per file (at most the workspace cap); SIGXFSZ is reported',
        openFiles: 'RLIMIT_NOFILE per process; a process seen at the cap is reported',
        cpuSeconds: 'RLIMIT_CPU per process; SIGXCPU is reported',
        workspaceMb:
          'host-side monitor: disk usage walked every 0.5 s or more; the processes writing into it are stopped',
        tmpMb: 'size of the tmpfs at /tmp, /root and /dev/shm (each); a full one is reported',
        wallSeconds: 'host timer: kills the whole sandbox',
      },
      network:
        'with net: the host network namespace is shared (the internet, and also the host loopback services and abstract unix sockets); ' +
        'without: an empty network namespace (loopback only, its own)',
    };
  }

  /** `command`: an argv, or the lab's interactive bash with the rc text it reads at start-up. */
  private async prepare(
    spec: SandboxSpec,
    mode: 'run' | 'pty',
    command: { argv: string[] } | { shellRc: string },
  ): Promise<Prepared> {
    const status = await detectBubblewrap();
    if (!status.ok || !status.path || !status.prlimitPath) {
      const code =
        status.problem === 'missing'
          ? 'BWRAP_MISSING'
          : status.problem === 'userns'
            ? 'USERNS_UNAVAILABLE'
            : 'START_FAILED';
      throw new SandboxError(
        code,
        status.problem === 'missing'
          ? 'bubblewrap (bwrap) is not installed'
          : status.problem === 'userns'
            ? 'bubblewrap cannot create a sandbox here'
            : 'prlimit is missing',
        status.hint,
      );
    }
    const argv = 'argv' in command ? command.argv : ['/bin/bash'];
    if (!Array.isArray(argv) || argv.length === 0 || argv.some((a) => typeof a !== 'string' || a.includes('\0'))) {
      throw new SandboxError('BAD_SPEC', 'argv: a non-empty list of strings without NUL bytes is required');
    }
    if (!spec || typeof spec !== 'object') throw new SandboxError('BAD_SPEC', 'spec: an object is required');
    if ('shellRc' in command && typeof command.shellRc !== 'string')
      throw new SandboxError('BAD_SPEC', 'shell.rc: a string of bash commands is required');
    const limits = validateLimits({ ...spec.limits });
    const { workspace, mounts } = checkSpecPaths(spec, this.protectedPaths);
    const workdir = spec.workdir ?? DEFAULT_WORKDIR;
    if (
      !workdir.startsWith('/') ||
      workdir.split('/').includes('..') ||
      ['/', '/usr', '/proc', '/dev', '/etc', '/tmp'].includes(workdir)
    ) {
      throw new SandboxError('BAD_SPEC', `workdir: '${workdir}' must be an absolute path of its own (e.g. /app)`);
    }
    const env = baseEnv(mode);
    for (const [k, v] of Object.entries(spec.env ?? {})) {
      if (!ENV_NAME.test(k)) throw new SandboxError('BAD_SPEC', `env: '${k}' is not a valid variable name`);
      if (typeof v !== 'string' || v.includes('\0'))
        throw new SandboxError('BAD_SPEC', `env.${k}: the value must be a string without NUL bytes`);
      env[k] = v;
    }
    const aliases = spec.commandAliases ?? {};
    for (const [name, target] of Object.entries(aliases)) {
      if (!/^[A-Za-z0-9._+-]+$/.test(name) || !target.startsWith('/') || target.includes('\0'))
        throw new SandboxError(
          'BAD_SPEC',
          `commandAliases.${name}: a command name and an absolute target are required`,
        );
    }
    if (Object.keys(aliases).length) env.PATH = `${ALIAS_DIR}:${env.PATH}`;
    const cwd = spec.cwd;
    if (cwd !== undefined && (cwd.split('/').includes('..') || (cwd !== workdir && !cwd.startsWith(`${workdir}/`)))) {
      throw new SandboxError('BAD_SPEC', `cwd: '${cwd}' must be the workdir ${workdir} or a folder inside it`);
    }
    const allowance = await workspaceAllowance(workspace, limits);
    const cgroup = this.options.cgroups === false ? null : await createSandboxCgroup(limits);
    // Root without a cgroup has no kernel cap on processes but this one (pid-cap.ts).
    const unsharePath = cgroup === null ? await pidCapAvailable() : null;
    const shell = 'shellRc' in command;
    if (shell) argv.push('--noprofile', '--rcfile', shellRcFile(command.shellRc), '-i');
    const plan: LaunchPlan = {
      bwrapPath: status.path,
      prlimitPath: status.prlimitPath,
      workspace,
      workdir,
      mounts,
      env,
      net: !!spec.net,
      limits,
      mode,
      cgroupMemory: cgroup !== null,
      cgroupProcsFiles: cgroup?.procsFiles ?? [],
      features: status.features ?? { disableUserns: false, tmpfsSize: false },
      files: runtimeFiles(),
      argv,
      shell,
      cwd,
      commandAliases: aliases,
      pidCap: unsharePath ? { unsharePath, pidMax: pidMaxFor(limits.processes) } : null,
    };
    return { plan, cgroup, status, workspaceAllowance: allowance };
  }

  async run(spec: SandboxSpec, argv: string[], options: RunOptions = {}): Promise<RunResult> {
    const { plan, cgroup, workspaceAllowance } = await this.prepare(spec, 'run', { argv });
    const run = startRun(plan, cgroup, options);
    // A gated run waits here, its command already started; it goes on with what the opening brings.
    const { go, beforeGate, allowance } = await openGate(run, plan, workspaceAllowance, options);
    const stopEnforcing = enforceLimits(run, plan, cgroup, go, allowance);
    run.child.stdin.end(go?.stdin ?? '');
    const exit = await run.exited;
    stopEnforcing();
    // Nothing outlives the call: when bwrap exits, its init dies (--die-with-parent) and takes the pid namespace along.
    const events = cgroup?.events();
    await cgroup?.remove();
    const stderrText = run.out.stderr.text();
    checkStarted(exit, stderrText, run);
    const { exitCode, signal } = exitStatus(exit);
    await limitsSeenAtExit(run, plan, { signal, exitCode, events, cgroup, stderrText, allowance });
    const truncated = { stdout: run.out.stdout.truncatedChars, stderr: run.out.stderr.truncatedChars };
    if (truncated.stdout || truncated.stderr) run.hit('output');
    return {
      exitCode,
      signal,
      timedOut: run.timedOut,
      limit: decisiveLimit(run.stoppedBy, signal, run.limitsHit),
      stdout: run.out.stdout.text(),
      stderr: stderrText,
      durationMs: Math.round(performance.now() - run.started),
      limitsHit: run.limitsHit,
      aborted: run.aborted,
      truncatedChars: truncated,
      ...(options.gate ? { beforeGate } : {}),
    };
  }

  async spawnPty(spec: SandboxSpec, argv: string[], size: { cols: number; rows: number }): Promise<PtyProcess> {
    return this.startPty(await this.prepare(spec, 'pty', { argv }), size);
  }

  /**
   * The lab's interactive bash: its rc file sets RLIMIT_NPROC (shell-start.ts), then runs `shell.rc`. One
   * program start fewer than `spawnPty`, which needs prlimit between bwrap and the command.
   */
  async spawnShell(spec: SandboxSpec, shell: ShellStart, size: { cols: number; rows: number }): Promise<PtyProcess> {
    return this.startPty(await this.prepare(spec, 'pty', { shellRc: shell.rc }), size);
  }

  private startPty(
    { plan, cgroup, workspaceAllowance }: Prepared,
    size: { cols: number; rows: number },
  ): BubblewrapPty {
    const { file, args } = launchCommand(plan);
    let term: Pty.IPty;
    try {
      term = nodePty().spawn(file, args, {
        name: plan.env.TERM ?? 'xterm-256color',
        cols: size.cols,
        rows: size.rows,
        cwd: '/',
        env: LAUNCHER_ENV,
      });
    } catch (error) {
      void cgroup?.remove();
      throw new SandboxError('START_FAILED', `could not start the sandbox: ${(error as Error).message}`);
    }
    // Returned in the same turn as the spawn: the caller subscribes before any output can arrive.
    return new BubblewrapPty(term, plan, cgroup, workspaceAllowance);
  }
}

class BubblewrapPty extends SandboxPty {
  private readonly goneListeners = new Set<() => void>();
  private gone = false;
  private readonly stopWatching: () => void;

  constructor(
    term: Pty.IPty,
    plan: LaunchPlan,
    private readonly cgroup: SandboxCgroup | null,
    workspaceAllowance: number,
  ) {
    super(term, {
      seconds: plan.limits.wallSeconds,
      notice: `${describeLimit('wallSeconds', plan.limits)} reached: the sandbox is closed`,
    });
    this.stopWatching = watchSandbox({
      rootPid: term.pid,
      mode: 'pty',
      limits: plan.limits,
      workspace: plan.workspace,
      workdir: plan.workdir,
      workspaceAllowance,
      cgroup,
      nprocEnforced: process.getuid?.() !== 0,
      wrapperDepth: plan.pidCap ? 1 : 0,
      onFire: (e) => this.fire(e),
    });
  }

  private fire(e: LimitFired): void {
    if (e.action === 'sandbox') this.stoppedBy ??= e.limit;
    this.notice(e.message);
    this.emitLimit({ limit: e.limit, message: e.message, killed: e.killed });
  }

  /**
   * bwrap has exited: its pid namespace, and every process in it, went with it (the kernel reaps the
   * namespace before its init's exit completes). The output may still be draining.
   */
  protected override processesGone(): void {
    this.gone = true;
    for (const l of this.goneListeners) l();
  }

  protected override beforeDrain(): void {
    this.stopWatching();
  }

  protected async settle(exitCode: number, signal: number | null): Promise<PtyExit> {
    const events = this.cgroup?.events();
    await this.cgroup?.remove();
    let code = exitCode;
    let sig = signal || null;
    if (code > 128 && SIGNAL_NAMES.has(code - 128)) sig = code - 128;
    let limit = this.stoppedBy;
    if (!limit && sig === osConstants.signals.SIGXCPU) limit = 'cpuSeconds';
    if (!limit && events?.oomKills) limit = 'memoryMb';
    if (sig && code === 0) code = 128 + sig;
    return { exitCode: code, signal: sig, limit };
  }

  onGone(listener: () => void) {
    if (this.gone) queueMicrotask(listener);
    else this.goneListeners.add(listener);
    return { dispose: () => void this.goneListeners.delete(listener) };
  }

  kill(): void {
    if (this.exited) return; // reaped: the pid may belong to someone else now
    killTreeNow(processTree(this.term.pid));
  }

  terminalReader(): number | null {
    if (this.exited || this.gone) return null;
    return terminalReader(processTree(this.term.pid));
  }
}

/** A `run` in progress: its process, its output so far, the limits it hit and how it was stopped. */
interface RunState {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<ChildEnd>;
  out: { stdout: HeadTail; stderr: HeadTail };
  limitsHit: LimitName[];
  stoppedBy: LimitName | null;
  aborted: boolean;
  timedOut: boolean;
  /** When the command's time started counting (a gated run: when the gate opened). */
  started: number;
  rootPid: number | undefined;
  hit(limit: LimitName): void;
  killTree(): void;
}

/** Spawns the launcher and collects its output; the tree is killed only while bwrap is not yet reaped. */
function startRun(plan: LaunchPlan, cgroup: SandboxCgroup | null, options: RunOptions): RunState {
  const started = performance.now();
  const maxChars = options.maxOutputChars ?? DEFAULT_RUN_OUTPUT_CHARS;
  const { file, args } = launchCommand(plan);
  const child = spawn(file, args, { env: LAUNCHER_ENV, cwd: '/', stdio: ['pipe', 'pipe', 'pipe'] });
  const rootPid = child.pid;
  let reaped = false;
  child.once('exit', () => (reaped = true));
  const run: RunState = {
    child,
    // Past the grace, whatever still holds the output is outside bwrap's tree (see child-exit.ts): it is in
    // the sandbox's cgroup, which is emptied.
    exited: childEnded(child, STDIO_GRACE_MS, () => void cgroup?.kill()),
    out: { stdout: new HeadTail(maxChars), stderr: new HeadTail(maxChars) },
    limitsHit: [],
    stoppedBy: null,
    aborted: false,
    timedOut: false,
    started,
    rootPid,
    hit(limit) {
      if (!run.limitsHit.includes(limit)) run.limitsHit.push(limit);
    },
    killTree() {
      // Once reaped, the pid may belong to someone else: never signal it again.
      if (rootPid === undefined || reaped) return;
      // The sandbox's init dies with bwrap (--die-with-parent) and takes its pid namespace along; kill both to be quick.
      killTreeNow(processTree(rootPid));
    },
  };
  decodeOutput(child, (stream, text) => {
    run.out[stream].push(text);
    options.onOutput?.(stream, text);
  });
  child.stdin.on('error', () => {}); // the command may exit without reading its input
  return run;
}

/**
 * What the run goes on with: at once (no gate), or what the gate's opening brings (its wall limit, and the
 * workspace allowance measured again). Null when it ended before the gate opened or the gate's owner stopped it.
 */
async function openGate(
  run: RunState,
  plan: LaunchPlan,
  allowanceAtStart: number,
  options: RunOptions,
): Promise<{ go: RunGateOpen | null; beforeGate: boolean; allowance: number }> {
  const go: RunGateOpen = { stdin: options.stdin ?? '', wallSeconds: plan.limits.wallSeconds, signal: options.signal };
  if (!options.gate) return { go, beforeGate: false, allowance: allowanceAtStart };
  const opened = await Promise.race([options.gate.then((open) => ({ open })), run.exited.then(() => null)]);
  if (!opened) {
    // Ended on its own before the gate opened.
    run.killTree();
    return { go: null, beforeGate: true, allowance: allowanceAtStart };
  }
  if (!opened.open) {
    // Stopped unstarted by the gate's owner.
    run.aborted = true;
    run.killTree();
    return { go: null, beforeGate: true, allowance: allowanceAtStart };
  }
  // The workspace may have been filled while the gate was shut: its allowance is measured now.
  const allowance = await workspaceAllowance(plan.workspace, plan.limits);
  plan.limits = { ...plan.limits, wallSeconds: opened.open.wallSeconds };
  run.started = performance.now();
  return { go: opened.open, beforeGate: false, allowance };
}

/** The monitor, the wall-clock timer and the caller's abort signal on a started run; the function returned stops all three. */
function enforceLimits(
  run: RunState,
  plan: LaunchPlan,
  cgroup: SandboxCgroup | null,
  go: RunGateOpen | null,
  allowance: number,
): () => void {
  const stopWatching =
    run.rootPid === undefined || go === null
      ? () => {}
      : watchSandbox({
          rootPid: run.rootPid,
          mode: 'run',
          limits: plan.limits,
          workspace: plan.workspace,
          workdir: plan.workdir,
          workspaceAllowance: allowance,
          cgroup,
          nprocEnforced: process.getuid?.() !== 0,
          wrapperDepth: plan.pidCap ? 1 : 0,
          onFire: (e: LimitFired) => {
            run.hit(e.limit);
            if (e.action === 'sandbox' && !run.stoppedBy) run.stoppedBy = e.limit;
          },
        });
  const wall =
    go !== null && go.wallSeconds > 0
      ? setTimeout(() => {
          run.timedOut = true;
          run.hit('wallSeconds');
          run.stoppedBy ??= 'wallSeconds';
          run.killTree();
        }, go.wallSeconds * 1000)
      : null;
  const onAbort = () => {
    run.aborted = true;
    run.killTree();
  };
  const abortSignal = go?.signal;
  if (abortSignal?.aborted) onAbort();
  abortSignal?.addEventListener('abort', onAbort, { once: true });
  return () => {
    if (wall) clearTimeout(wall);
    abortSignal?.removeEventListener('abort', onAbort);
    stopWatching();
  };
}

/** Throws when the sandbox never ran its command: the launcher did not start, bwrap could not set up, a cgroup or limit was refused. */
function checkStarted(exit: ChildEnd, stderrText: string, run: RunState): void {
  if (exit.error) throw new SandboxError('START_FAILED', `could not start the sandbox: ${exit.error.message}`);
  if (exit.code === 1 && /^bwrap: [^\n]*\n?$/.test(stderrText) && run.limitsHit.length === 0 && !run.aborted) {
    throw new SandboxError('START_FAILED', `bubblewrap could not set up the sandbox: ${stderrText.trim()}`);
  }
  if (exit.code === 125 && stderrText.startsWith('t1lab: cannot join cgroup')) {
    throw new SandboxError('START_FAILED', stderrText.trim(), 'set T1LAB_SANDBOX_CGROUPS=0 to run without cgroups');
  }
  if (exit.code === 125 && stderrText.startsWith('t1lab: cannot cap the sandbox pids')) {
    throw new SandboxError('START_FAILED', stderrText.trim(), 'run the lab as a normal user, or where cgroups work');
  }
  if (exit.code === 125 && stderrText.startsWith('t1lab: cannot set limit')) {
    throw new SandboxError(
      'START_FAILED',
      stderrText.trim(),
      'lower the limit, or raise the hard limit of the user running the lab (ulimit -H)',
    );
  }
}

/** The command's exit code or signal: bwrap exits with 128+N when its command died of signal N. */
export function exitStatus(exit: Pick<ChildEnd, 'code' | 'signal'>): {
  exitCode: number | null;
  signal: string | null;
} {
  if (exit.code !== null && exit.code > 128 && SIGNAL_NAMES.has(exit.code - 128))
    return { exitCode: null, signal: SIGNAL_NAMES.get(exit.code - 128) as string };
  return { exitCode: exit.code, signal: exit.signal };
}

/** The limits the exit shows: the rlimit signals, a cgroup's OOM kills and refused forks, an allocation failure, a workspace over its cap. */
async function limitsSeenAtExit(
  run: RunState,
  plan: LaunchPlan,
  e: {
    signal: string | null;
    exitCode: number | null;
    events: { oomKills: number; pidsMax: number } | undefined;
    cgroup: SandboxCgroup | null;
    stderrText: string;
    allowance: number;
  },
): Promise<void> {
  if (e.signal === 'SIGXCPU') run.hit('cpuSeconds');
  if (e.signal === 'SIGXFSZ')
    run.hit(effectiveFileSizeMb(plan.limits) < plan.limits.fileSizeMb ? 'workspaceMb' : 'fileSizeMb');
  if (e.events?.oomKills) run.hit('memoryMb');
  // Without a cgroup, a single process refused memory by RLIMIT_AS only sees ENOMEM: its own words are the evidence.
  if (!e.cgroup && e.exitCode !== 0 && OUT_OF_MEMORY.test(e.stderrText.slice(-4096))) run.hit('memoryMb');
  // A command may end before the monitor's next walk: check the workspace once more.
  if (!run.limitsHit.includes('workspaceMb')) {
    if ((await treeUsage(plan.workspace, e.allowance)).bytes > e.allowance) run.hit('workspaceMb');
  }
  if (e.events?.pidsMax) run.hit('processes');
}

/** The limit that decided the run: the one that stopped it, else the rlimit its signal names, else the first one hit. */
export function decisiveLimit(
  stoppedBy: LimitName | null,
  signal: string | null,
  limitsHit: readonly LimitName[],
): LimitName | null {
  const bySignal =
    signal === 'SIGXCPU'
      ? 'cpuSeconds'
      : signal === 'SIGXFSZ'
        ? (limitsHit.find((l) => l === 'workspaceMb' || l === 'fileSizeMb') ?? null)
        : null;
  return stoppedBy ?? bySignal ?? limitsHit[0] ?? null;
}
