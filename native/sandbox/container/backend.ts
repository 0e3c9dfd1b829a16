/**
 * The podman/docker backend: the same contract as bubblewrap (run, pty sessions, limits), in a container
 * of the task's own image. Each call starts its own container (named, labelled with the lab's pid); when
 * the command or shell ends the container is committed to `spec.container.commitTo` if asked (so the next
 * phase — the verifier, for one — starts from the state the agent left, as Harbor's verifier does) and
 * then removed. Limits are engine flags (run-args.ts); the wall clock is a host timer that kills the
 * container.
 */
import { PendingCommits } from './pending-commits';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as pty from 'node-pty';
import { nodePty } from '../lazy-pty';
import { HeadTail } from '../../util/head-tail';
import { SandboxError } from '../errors';
import { validateLimits } from '../limits';
import { decodeOutput } from '../output-decoding';
import type {
  BackendStatus,
  Enforcement,
  LimitName,
  PtyProcess,
  RunOptions,
  RunResult,
  SandboxBackend,
  SandboxSpec,
  ShellStart,
} from '../types';
import {
  detectContainerEngine,
  engineCommand,
  engineExec,
  hostHardLimits,
  LABEL_KIND,
  LABEL_OWNER,
  ownerLabel,
  type EngineName,
  type EngineProbe,
} from './engine';
import { containerHostPid } from './host-pid';
import { ContainerPty } from './pty';
import { containerName, requireImage, runArgs } from './run-args';

export const DEFAULT_CONTAINER_OUTPUT_CHARS = 1_000_000;
/** Exit status the engine itself uses when it could not start the container (docker and podman alike). */
const ENGINE_START_FAILURES = new Set([125]);
/** The oom killer's signal as the engine reports a killed container (128 + SIGKILL). */
const SIGKILL_STATUS = 137;
const SIGNAL_NAMES: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  6: 'SIGABRT',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  15: 'SIGTERM',
  24: 'SIGXCPU',
  25: 'SIGXFSZ',
};
/** Where the shell's rc file is mounted (a bind mount: never part of a commit). */
const RC_DIR = '/run/t1lab';

export class ContainerBackend implements SandboxBackend {
  private probe: Promise<EngineProbe> | null = null;
  /** Commits in progress by tag: a phase that starts from that tag waits for its state to be saved. */
  private readonly pending = new PendingCommits();

  constructor(readonly name: EngineName) {}

  private engine(): Promise<EngineProbe> {
    this.probe ??= detectContainerEngine(this.name);
    return this.probe;
  }

  async status(): Promise<BackendStatus> {
    const p = await this.engine();
    return {
      name: this.name,
      available: p.serverVersion !== null,
      version: p.serverVersion,
      hint: p.hint ? `${p.detail}; ${p.hint}` : null,
    };
  }

  async enforcement(): Promise<Enforcement> {
    return {
      cgroup: 'none',
      cgroupReason: `the ${this.name} engine's own cgroup caps memory and processes for the whole container`,
      limits: {
        processes: '--pids-limit (whole container)',
        memoryMb: '--memory and --memory-swap (whole container)',
        fileSizeMb: '--ulimit fsize (per process)',
        openFiles: '--ulimit nofile (per process)',
        cpuSeconds: '--ulimit cpu (per process); --cpus caps the share when the task sets cpus',
        workspaceMb: "not enforced in containers (the image layer grows on the engine's storage)",
        tmpMb: "not enforced in containers (/tmp is the image's own)",
        wallSeconds: 'host timer: the container is killed at the deadline',
      },
      network: `net=false: --network none; net=true: the engine's bridge network (the internet, not the host's loopback)`,
    };
  }

  private async ready(spec: SandboxSpec): Promise<void> {
    const s = await this.status();
    if (!s.available) throw new SandboxError('ENGINE_UNAVAILABLE', `the ${this.name} backend is unavailable`, s.hint);
    validateLimits(spec.limits);
    try {
      requireImage(spec);
    } catch (e) {
      throw new SandboxError('BAD_SPEC', (e as Error).message);
    }
    await this.settled(spec.container?.image as string);
  }

  /** Wait until no commit to `tag` is in progress (the state a shell left is saved before anyone reads it). */
  async settled(tag: string): Promise<void> {
    await this.pending.settled(tag);
  }

  /** Commit the stopped container when asked, then remove it; the old image under that tag is removed too. */
  private finishContainer(name: string, spec: SandboxSpec): Promise<string | null> {
    return this.pending.track(spec.container?.commitTo, this.commitAndRemove(name, spec));
  }

  private async commitAndRemove(name: string, spec: SandboxSpec): Promise<string | null> {
    let problem: string | null = null;
    const commitTo = spec.container?.commitTo;
    if (commitTo) {
      const old = await engineExec(this.name, ['image', 'inspect', '--format', '{{.Id}}', commitTo]);
      const c = await engineExec(
        this.name,
        [
          'commit',
          '--quiet',
          '--change',
          `LABEL ${LABEL_OWNER}=${ownerLabel()}`,
          '--change',
          `LABEL ${LABEL_KIND}=state`,
          name,
          commitTo,
        ],
        600_000,
      );
      if (!c.ok)
        problem = `could not save the container's state (${this.name} commit): ${c.stderr.trim().slice(0, 300)}`;
      else if (old.ok && old.stdout.trim() && old.stdout.trim() !== c.stdout.trim())
        await engineExec(this.name, ['rmi', old.stdout.trim()]);
    }
    await engineExec(this.name, ['rm', '-f', name], 60_000);
    return problem;
  }

  async run(spec: SandboxSpec, argv: string[], options: RunOptions = {}): Promise<RunResult> {
    await this.ready(spec);
    const name = containerName();
    const hard = await hostHardLimits();
    const { file, args } = engineCommand(this.name, [
      ...runArgs(spec, name, hard, { tty: false, stdin: options.stdin !== undefined }),
      ...argv,
    ]);
    const started = performance.now();
    const maxChars = options.maxOutputChars ?? DEFAULT_CONTAINER_OUTPUT_CHARS;
    const out = { stdout: new HeadTail(maxChars), stderr: new HeadTail(maxChars) };
    const limitsHit: LimitName[] = [];
    let timedOut = false;
    let aborted = false;
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const kill = () => void engineExec(this.name, ['kill', name], 30_000);
    const wall =
      spec.limits.wallSeconds > 0
        ? setTimeout(() => ((timedOut = true), limitsHit.push('wallSeconds'), kill()), spec.limits.wallSeconds * 1000)
        : null;
    const onAbort = () => ((aborted = true), kill());
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    decodeOutput(child, (stream, text) => {
      out[stream].push(text);
      options.onOutput?.(stream, text);
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
    const exit = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, error }));
      child.once('close', (code) => resolve({ code }));
    });
    if (wall) clearTimeout(wall);
    options.signal?.removeEventListener('abort', onAbort);
    const inspect = await engineExec(this.name, ['inspect', '--format', '{{.State.OOMKilled}}', name]);
    const commitProblem = await this.finishContainer(name, spec);
    if (exit.error) throw new SandboxError('START_FAILED', `could not start ${this.name}: ${exit.error.message}`);
    const stderr = out.stderr.text();
    if (
      exit.code !== null &&
      ENGINE_START_FAILURES.has(exit.code) &&
      !timedOut &&
      !aborted &&
      /^(Error|docker:)/m.test(stderr)
    ) {
      throw new SandboxError(
        'START_FAILED',
        `${this.name} could not start the container: ${stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500)}`,
      );
    }
    if (commitProblem) throw new SandboxError('START_FAILED', commitProblem);
    let exitCode = exit.code;
    let signal: string | null = null;
    if (exitCode !== null && exitCode > 128 && SIGNAL_NAMES[exitCode - 128]) {
      signal = SIGNAL_NAMES[exitCode - 128] as string;
      exitCode = null;
    }
    if (
      inspect.stdout.trim() === 'true' ||
      (exit.code === SIGKILL_STATUS && !timedOut && !aborted && /Killed|MemoryError|Cannot allocate/.test(stderr))
    )
      limitsHit.push('memoryMb');
    if (signal === 'SIGXCPU') limitsHit.push('cpuSeconds');
    if (signal === 'SIGXFSZ') limitsHit.push('fileSizeMb');
    const truncated = { stdout: out.stdout.truncatedChars, stderr: out.stderr.truncatedChars };
    if (truncated.stdout || truncated.stderr) limitsHit.push('output');
    return {
      exitCode,
      signal,
      timedOut,
      limit: limitsHit[0] ?? null,
      stdout: out.stdout.text(),
      stderr,
      durationMs: Math.round(performance.now() - started),
      limitsHit,
      aborted,
      truncatedChars: truncated,
    };
  }

  async spawnPty(spec: SandboxSpec, argv: string[], size: { cols: number; rows: number }): Promise<PtyProcess> {
    await this.ready(spec);
    return this.startPty(spec, argv, size, null);
  }

  /** The lab's interactive bash, its rc file mounted read-only at /run/t1lab (a mount: never committed). */
  async spawnShell(spec: SandboxSpec, shell: ShellStart, size: { cols: number; rows: number }): Promise<PtyProcess> {
    await this.ready(spec);
    const dir = await mkdtemp(join(tmpdir(), `t1lab-rc-${process.pid}-`));
    await writeFile(join(dir, 'rc'), `${shell.rc}\n`, { mode: 0o444 });
    const withRc: SandboxSpec = {
      ...spec,
      mounts: [...(spec.mounts ?? []), { host: dir, sandbox: RC_DIR, readOnly: true }],
    };
    return this.startPty(withRc, ['bash', '--noprofile', '--rcfile', `${RC_DIR}/rc`, '-i'], size, dir);
  }

  private async startPty(
    spec: SandboxSpec,
    argv: string[],
    size: { cols: number; rows: number },
    rcDir: string | null,
  ): Promise<PtyProcess> {
    const name = containerName();
    const hard = await hostHardLimits();
    const { file, args } = engineCommand(this.name, [
      ...runArgs(spec, name, hard, { tty: true, stdin: true }),
      ...argv,
    ]);
    let term: pty.IPty;
    try {
      term = nodePty().spawn(file, args, {
        name: 'xterm-256color',
        cols: size.cols,
        rows: size.rows,
        cwd: '/',
        env: process.env as Record<string, string>,
      });
    } catch (error) {
      throw new SandboxError('START_FAILED', `could not start ${this.name}: ${(error as Error).message}`);
    }
    const shell = new ContainerPty(term, {
      wallSeconds: spec.limits.wallSeconds,
      kill: () => engineExec(this.name, ['kill', name], 30_000).then(() => {}),
      finish: async () => {
        const problem = await this.finishContainer(name, spec);
        if (rcDir) await rm(rcDir, { recursive: true, force: true });
        return problem;
      },
      oomKilled: async () =>
        (await engineExec(this.name, ['inspect', '--format', '{{.State.OOMKilled}}', name])).stdout.trim() === 'true',
      hostPid: async () => {
        const said = (await engineExec(this.name, ['inspect', '--format', '{{.State.Pid}} {{.Id}}', name])).stdout;
        const [pid, id] = said.trim().split(' ');
        return containerHostPid(Number(pid), id);
      },
    });
    // From now until the shell's container is committed, a phase that starts from that state waits for it.
    this.pending.track(spec.container?.commitTo, shell.done);
    return shell;
  }
}
