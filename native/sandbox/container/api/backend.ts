/**
 * The container backend over the Docker Engine API: the contract of the CLI backend (container/backend.ts:
 * run, pty shells, limits, commit-then-remove between phases) on any engine host, local or remote. Each
 * call creates its own container, labelled for the sweep (labels.ts), gives it the spec's mounts: bound
 * where the engine sees this machine's files (shared-files.ts), else copied in (the read-only ones into
 * volumes that no commit includes: read-only-volumes.ts; the writable ones back out after it stopped:
 * files.ts), and ends with a commit to `spec.container.commitTo` when asked, then the
 * container's removal. The wall clock is a timer here that kills the container.
 */
import { PendingCommits } from '../pending-commits';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Duplex } from 'node:stream';
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { HeadTail } from '../../../util/head-tail';
import { SandboxError } from '../../errors';
import { validateLimits } from '../../limits';
import type {
  BackendStatus,
  Enforcement,
  LimitName,
  Mount,
  PtyProcess,
  RunOptions,
  RunResult,
  SandboxBackend,
  SandboxSpec,
  ShellStart,
} from '../../types';
import { DEFAULT_CONTAINER_OUTPUT_CHARS } from '../backend';
import { hostHardLimits, LABEL_KIND, type HardLimits } from '../engine';
import { containerHostPid } from '../host-pid';
import { ContainerPty } from '../pty';
import { containerName, requireImage } from '../run-args';
import { AttachedTerminal } from './attach-pty';
import { exitStatus } from './exit-status';
import { splitRef, type ApiEngine, type EngineClient } from './client';
import { createOptions, specMounts, type CreateMode } from './create-options';
import { packFolder, unpackInto } from './files';
import { DEADLINE_GRACE_MS, DEFAULT_LIFETIME_MS, LABEL_DEADLINE, labLabels, type LabelContext } from './labels';
import { createReadOnlyVolumes, fillVolumes, removeVolumes, type CopiedVolume } from './read-only-volumes';
import { sharesFiles } from './shared-files';

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
const SIGKILL_STATUS = 137;
/**
 * Where the shell's rc file goes: always copied in, also where the spec's folders are bound, since the rc
 * removes it (so neither the agent nor a commit sees it; a read-only bind could not be removed).
 */
const RC_DIR = '/run/t1lab';
/**
 * The command waits for one line on its stdin before it starts: podman's service answers the attach before
 * it is connected to the container, and what the container writes before that is lost (a shell's first
 * prompt, a quick command's output). The line comes through the attach stream, so once it has arrived the
 * output is connected too. Echo is off meanwhile, so a terminal does not show it.
 */
const START_GATE = [
  '/bin/sh',
  '-c',
  'stty -echo 2>/dev/null; read -r _t1lab_go; stty echo 2>/dev/null; exec "$@"',
  'sh',
];
/** How long the output may trail the container's exit before it is taken as complete. */
const OUTPUT_TAIL_MS = 5_000;

/** A container the backend made, and what goes with it. */
interface Made {
  container: Docker.Container;
  /** The spec's folders are bound (else copied: the writable ones come back after the stop). */
  bound: boolean;
  /** Where the copied read-only folders are: removed with the container. */
  volumes: CopiedVolume[];
}

/** An error of the host itself (it went away, refused, timed out), as opposed to one of the task: an infrastructure error. */
export function isHostFailure(error: unknown): boolean {
  const e = error as { code?: string; statusCode?: number; message?: string };
  if (e?.code && /^(ECONNREFUSED|ECONNRESET|ENOENT|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/.test(e.code))
    return true;
  if (e?.statusCode && e.statusCode >= 500) return !/no such image|not found/i.test(e.message ?? '');
  return /socket hang up|unreachable at|no answer within|connect E[A-Z]+/.test(e?.message ?? '');
}

/**
 * Attach to a container's streams (before it starts, so nothing is missed). dockerode's attach sends its
 * options as a JSON body too, which podman's service reads as the container's stdin (and so would it read a
 * chunked body's end marker); so the request here has a body of length 0 and is ended at once: the
 * upgraded connection then carries stdin and the output.
 */
export function attach(docker: Docker, container: Docker.Container, stdin: boolean): Promise<Duplex> {
  const query = { stream: true, stdin, stdout: true, stderr: true };
  return new Promise((resolve, reject) => {
    docker.modem.dial(
      {
        path: `/containers/${container.id}/attach?`,
        method: 'POST',
        isStream: true,
        hijack: true,
        openStdin: false,
        statusCodes: { 101: true, 200: true, 404: 'no such container', 500: 'server error' },
        // An empty body of length 0: no chunked encoding, whose end marker podman would pass on as stdin.
        file: Buffer.alloc(0),
        options: query,
      },
      (err: unknown, stream: unknown) => (err ? reject(err as Error) : resolve(stream as Duplex)),
    );
  });
}

export class ApiContainerBackend implements SandboxBackend {
  /** Commits in progress by tag: a phase that starts from that tag waits for its state to be saved. */
  private readonly pending = new PendingCommits();

  constructor(
    readonly client: EngineClient,
    readonly name: ApiEngine,
    private readonly labels: LabelContext,
  ) {}

  get host(): string {
    return this.client.name;
  }

  private get docker(): Docker {
    return this.client.docker;
  }

  async status(): Promise<BackendStatus> {
    try {
      const info = await this.client.engineInfo();
      return { name: `${info.engine}@${this.host}`, available: true, version: info.version, hint: null };
    } catch (e) {
      return {
        name: `${this.name}@${this.host}`,
        available: false,
        version: null,
        hint: `${(e as Error).message}; check it with \`t1lab hosts check ${this.host}\``,
      };
    }
  }

  async enforcement(): Promise<Enforcement> {
    return {
      cgroup: 'none',
      cgroupReason: `the engine's own cgroup on host '${this.host}' caps memory and processes for the whole container`,
      limits: {
        processes: 'PidsLimit (whole container)',
        memoryMb: 'Memory and MemorySwap (whole container)',
        fileSizeMb: 'ulimit fsize (per process)',
        openFiles: 'ulimit nofile (per process)',
        cpuSeconds: 'ulimit cpu (per process); NanoCpus caps the share when the task sets cpus',
        workspaceMb: "not enforced in containers (the image layer grows on the engine's storage)",
        tmpMb: "not enforced in containers (/tmp is the image's own)",
        wallSeconds: 'timer in the lab: the container is killed at the deadline',
      },
      network: "net=false: NetworkMode none; net=true: the engine's bridge network",
    };
  }

  /** This machine's hard limits when the engine runs here (a unix socket), else none known. */
  private hard(): Promise<HardLimits | undefined> {
    return this.client.parsed.transport === 'unix' ? hostHardLimits() : Promise.resolve(undefined);
  }

  private async ready(spec: SandboxSpec): Promise<void> {
    validateLimits(spec.limits);
    try {
      requireImage(spec);
    } catch (e) {
      throw new SandboxError('BAD_SPEC', (e as Error).message);
    }
    const s = await this.status();
    if (!s.available) throw new SandboxError('ENGINE_UNAVAILABLE', `host '${this.host}' is unavailable`, s.hint);
    await this.settled(spec.container?.image as string);
  }

  /** Wait until no commit to `tag` is in progress. */
  async settled(tag: string): Promise<void> {
    await this.pending.settled(tag);
  }

  async hasImage(ref: string): Promise<boolean> {
    return (await this.client.imageId(ref)) !== null;
  }

  async removeImage(ref: string): Promise<boolean> {
    return this.docker
      .getImage(ref)
      .remove({ force: true })
      .then(
        () => true,
        () => false,
      );
  }

  private lifetime(spec: SandboxSpec): number {
    return spec.limits.wallSeconds > 0 ? spec.limits.wallSeconds * 1000 + DEADLINE_GRACE_MS : DEFAULT_LIFETIME_MS;
  }

  /**
   * Create the container with the spec's mounts (it has not started): bound when the host sees this
   * machine's files, else copied in (`bound` says which, for the copy back), the read-only ones into volumes
   * of their own; `copies` are copied in either way.
   */
  private async create(spec: SandboxSpec, argv: string[], mode: CreateMode, copies: Mount[] = []): Promise<Made> {
    const name = containerName();
    const hard = await this.hard();
    const bound =
      specMounts(spec).length > 0 &&
      (await sharesFiles(this.client, this.name, requireImage(spec).image, this.labels, hard));
    const copied = bound ? [] : specMounts(spec);
    let container: Docker.Container;
    let volumes: CopiedVolume[] = [];
    try {
      volumes = await createReadOnlyVolumes(
        this.docker,
        copied,
        name,
        labLabels(this.labels, 'files', this.lifetime(spec)),
      );
      container = await this.docker.createContainer(
        createOptions(
          spec,
          [...START_GATE, ...argv],
          name,
          labLabels(this.labels, 'sandbox', this.lifetime(spec)),
          { ...mode, bindMounts: bound, volumes },
          hard,
        ),
      );
    } catch (e) {
      await removeVolumes(this.docker, volumes);
      if (isHostFailure(e))
        throw new SandboxError('ENGINE_UNAVAILABLE', `host '${this.host}': ${(e as Error).message}`);
      throw new SandboxError(
        'START_FAILED',
        `host '${this.host}' could not create the container: ${(e as Error).message.slice(0, 500)}`,
      );
    }
    const made = { container, bound, volumes };
    try {
      for (const m of [...copied.filter((x) => !x.readOnly), ...copies]) {
        const pack = packFolder(m.host, m.sandbox);
        await Promise.all([container.putArchive(pack.stream, { path: '/' }), pack.done]);
      }
      await fillVolumes(container, volumes);
    } catch (e) {
      await this.discard(made);
      throw new SandboxError(
        'START_FAILED',
        `host '${this.host}': could not copy the mounts into the container: ${(e as Error).message.slice(0, 500)}`,
      );
    }
    return made;
  }

  /** Remove the container, then its volumes (a volume in use cannot go). */
  private async discard({ container, volumes }: Made): Promise<void> {
    await container.remove({ force: true, v: true }).catch(() => {});
    await removeVolumes(this.docker, volumes);
  }

  /**
   * After the container stopped: writable mounts back here (when copied), the state committed when asked,
   * the container removed.
   */
  private finishContainer(made: Made, spec: SandboxSpec): Promise<string | null> {
    return this.pending.track(spec.container?.commitTo, this.copyOutCommitRemove(made, spec));
  }

  private async copyOutCommitRemove(made: Made, spec: SandboxSpec): Promise<string | null> {
    const { container, bound } = made;
    const problems: string[] = [];
    for (const m of bound ? [] : specMounts(spec).filter((x) => !x.readOnly)) {
      try {
        await unpackInto(await container.getArchive({ path: m.sandbox }), m.host);
      } catch (e) {
        problems.push(
          `could not copy ${m.sandbox} back from host '${this.host}': ${(e as Error).message.slice(0, 300)}`,
        );
      }
    }
    const commitTo = spec.container?.commitTo;
    if (commitTo) {
      try {
        const old = await this.client.imageId(commitTo);
        const { repo, tag } = splitRef(commitTo);
        // The state is an image of this run: labelled (it inherits the container's labels) with a day's deadline.
        const changes = [`LABEL ${LABEL_KIND}=state`, `LABEL ${LABEL_DEADLINE}=${Date.now() + DEFAULT_LIFETIME_MS}`];
        const made = (await container.commit({ repo, tag, changes })) as { Id?: string; id?: string };
        const id = made.Id ?? made.id ?? '';
        if (old && id && !id.endsWith(old.replace(/^sha256:/, '')) && old !== id)
          await this.docker
            .getImage(old)
            .remove({ force: true })
            .catch(() => {});
      } catch (e) {
        problems.push(
          `could not save the container's state on host '${this.host}': ${(e as Error).message.slice(0, 300)}`,
        );
      }
    }
    await this.discard(made);
    return problems.length ? problems.join('; ') : null;
  }

  async run(spec: SandboxSpec, argv: string[], options: RunOptions = {}): Promise<RunResult> {
    await this.ready(spec);
    const started = performance.now();
    const made = await this.create(spec, argv, { tty: false, stdin: true });
    const { container } = made;
    const maxChars = options.maxOutputChars ?? DEFAULT_CONTAINER_OUTPUT_CHARS;
    const out = { stdout: new HeadTail(maxChars), stderr: new HeadTail(maxChars) };
    const limitsHit: LimitName[] = [];
    let timedOut = false;
    let aborted = false;
    let status: number | null = null;
    let hostError: unknown = null;
    const kill = () => void container.kill().catch(() => {});
    const wall =
      spec.limits.wallSeconds > 0
        ? setTimeout(() => ((timedOut = true), limitsHit.push('wallSeconds'), kill()), spec.limits.wallSeconds * 1000)
        : null;
    const onAbort = () => ((aborted = true), kill());
    try {
      const stream = await attach(this.docker, container, true);
      const drained = this.collect(stream, out, options);
      await container.start();
      if (options.signal?.aborted) onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      stream.end(`\n${options.stdin ?? ''}`);
      status = await exitStatus(container, this.name);
      await Promise.race([drained, new Promise((r) => setTimeout(r, OUTPUT_TAIL_MS))]);
    } catch (e) {
      hostError = e;
    } finally {
      if (wall) clearTimeout(wall);
      options.signal?.removeEventListener('abort', onAbort);
    }
    const oom = await container.inspect().then(
      (i) => i.State.OOMKilled === true,
      () => false,
    );
    const commitProblem = await this.finishContainer(made, spec);
    if (hostError) {
      if (isHostFailure(hostError))
        throw new SandboxError(
          'ENGINE_UNAVAILABLE',
          `host '${this.host}' failed mid-run: ${(hostError as Error).message}`,
        );
      throw new SandboxError(
        'START_FAILED',
        `host '${this.host}' could not run the container: ${(hostError as Error).message.slice(0, 500)}`,
      );
    }
    if (commitProblem) throw new SandboxError('START_FAILED', commitProblem);
    const stderr = out.stderr.text();
    let exitCode = status;
    let signal: string | null = null;
    if (exitCode !== null && exitCode > 128 && SIGNAL_NAMES[exitCode - 128]) {
      signal = SIGNAL_NAMES[exitCode - 128] as string;
      exitCode = null;
    }
    if (
      oom ||
      (status === SIGKILL_STATUS && !timedOut && !aborted && /Killed|MemoryError|Cannot allocate/.test(stderr))
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

  /** The attach stream's two multiplexed streams into the output buffers; resolves when the stream ends. */
  private collect(stream: Duplex, out: { stdout: HeadTail; stderr: HeadTail }, options: RunOptions): Promise<void> {
    const sink = (name: 'stdout' | 'stderr') => {
      const p = new PassThrough();
      const decoder = new StringDecoder('utf8');
      const push = (text: string) => {
        if (!text) return;
        out[name].push(text);
        options.onOutput?.(name, text);
      };
      p.on('data', (b: Buffer) => push(decoder.write(b)));
      p.on('end', () => push(decoder.end()));
      return p;
    };
    const stdout = sink('stdout');
    const stderr = sink('stderr');
    this.docker.modem.demuxStream(stream, stdout, stderr);
    return new Promise<void>((resolve) => {
      const done = () => (stdout.end(), stderr.end(), resolve());
      stream.once('end', done);
      stream.once('close', done);
      stream.once('error', done);
    });
  }

  async spawnPty(spec: SandboxSpec, argv: string[], size: { cols: number; rows: number }): Promise<PtyProcess> {
    await this.ready(spec);
    return this.startPty(spec, argv, size, []);
  }

  /** The lab's interactive bash, its rc file copied to /run/t1lab/rc (removed by the rc: never committed). */
  async spawnShell(spec: SandboxSpec, shell: ShellStart, size: { cols: number; rows: number }): Promise<PtyProcess> {
    await this.ready(spec);
    const dir = await mkdtemp(join(tmpdir(), `t1lab-rc-${process.pid}-`));
    // Removed without waiting (it has been copied into the container): the shell's first output is on its way.
    const cleanUp = () => void rm(dir, { recursive: true, force: true });
    try {
      await writeFile(join(dir, 'rc'), `${shell.rc}\nrm -rf ${RC_DIR} 2>/dev/null\n`, { mode: 0o444 });
      const shellProcess = await this.startPty(spec, ['bash', '--noprofile', '--rcfile', `${RC_DIR}/rc`, '-i'], size, [
        { host: dir, sandbox: RC_DIR, readOnly: true },
      ]);
      cleanUp();
      return shellProcess;
    } catch (e) {
      cleanUp();
      throw e;
    }
  }

  private async startPty(
    spec: SandboxSpec,
    argv: string[],
    size: { cols: number; rows: number },
    copies: Mount[],
  ): Promise<PtyProcess> {
    const made = await this.create(spec, argv, { tty: true, stdin: true }, copies);
    const { container } = made;
    let term: AttachedTerminal;
    try {
      const stream = await attach(this.docker, container, true);
      term = new AttachedTerminal(container, stream, this.name);
      await container.start();
      stream.write('\n');
      await container.resize({ h: size.rows, w: size.cols }).catch(() => {});
      term.pid = await container.inspect().then(
        (i) => i.State.Pid || 0,
        () => 0,
      );
    } catch (e) {
      await this.discard(made);
      const code = isHostFailure(e) ? 'ENGINE_UNAVAILABLE' : 'START_FAILED';
      throw new SandboxError(
        code,
        `host '${this.host}' could not start the shell: ${(e as Error).message.slice(0, 500)}`,
      );
    }
    const shell = new ContainerPty(term.asPty(), {
      wallSeconds: spec.limits.wallSeconds,
      kill: () =>
        container.kill().then(
          () => {},
          () => {},
        ),
      finish: () => this.finishContainer(made, spec),
      oomKilled: () =>
        container.inspect().then(
          (i) => i.State.OOMKilled === true,
          () => false,
        ),
      hostPid: () =>
        container.inspect().then(
          (i) => containerHostPid(i.State.Pid, i.Id),
          () => null,
        ),
    });
    this.pending.track(spec.container?.commitTo, shell.done);
    return shell;
  }
}
