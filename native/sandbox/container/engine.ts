/**
 * The container engine's command line (podman or docker). Every call the container backend makes goes
 * through `engineCommand`, which adds the global options this machine needs: podman with `--runtime runc`
 * where runc is installed (crun refuses hybrid cgroup layouts; runc runs on both), and explicit ulimits
 * below the caller's hard limits (podman's defaults can exceed them, and then nothing starts).
 */
import { existsSync, readlinkSync } from 'node:fs';
import { execQuiet, type ExecResult } from '../../util/exec';

export type EngineName = 'docker' | 'podman';

/** Labels every container and image the lab makes carries, so a sweep can find what a killed lab left. */
export const LABEL_OWNER = 't1lab.owner';
export const LABEL_KIND = 't1lab.kind';

/**
 * This process as an owner label: pid@pid-namespace. Pids are only comparable inside one pid namespace, so a
 * sweep only judges owners of its own namespace (a lab in another container or namespace is left alone).
 */
export function ownerLabel(pid = process.pid): string {
  return `${pid}@${pidNamespace()}`;
}

let ns: string | null = null;
export function pidNamespace(): string {
  if (ns === null) {
    try {
      ns = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? 'unknown';
    } catch {
      ns = 'unknown';
    }
  }
  return ns;
}

const RUNC_PATHS = ['/usr/bin/runc', '/usr/sbin/runc', '/usr/local/bin/runc'];

/** Global options before the sub-command. `T1LAB_PODMAN_RUNTIME` overrides the runtime choice ('' = the engine's default). */
export function globalOptions(engine: EngineName): string[] {
  if (engine !== 'podman') return [];
  const wanted = process.env.T1LAB_PODMAN_RUNTIME;
  if (wanted !== undefined) return wanted ? ['--runtime', wanted] : [];
  const runc = RUNC_PATHS.find((p) => existsSync(p));
  return runc ? ['--runtime', runc] : [];
}

export function engineCommand(engine: EngineName, args: string[]): { file: string; args: string[] } {
  return { file: engine, args: [...globalOptions(engine), ...args] };
}

export function engineExec(engine: EngineName, args: string[], timeoutMs = 60_000): Promise<ExecResult> {
  const c = engineCommand(engine, args);
  return execQuiet(c.file, c.args, { timeoutMs });
}

export interface HardLimits {
  openFiles: number;
  processes: number;
}

let hard: Promise<HardLimits> | null = null;

/** This process's hard RLIMIT_NOFILE and RLIMIT_NPROC (a container's ulimits may not exceed them). */
export function hostHardLimits(): Promise<HardLimits> {
  hard ??= execQuiet('sh', ['-c', 'ulimit -Hn; ulimit -Hu']).then((r) => {
    const [n, u] = r.stdout
      .trim()
      .split('\n')
      .map((v) => (v === 'unlimited' ? Number.POSITIVE_INFINITY : Number(v)));
    return { openFiles: Number.isFinite(n) && n ? (n as number) : 4096, processes: u && !Number.isNaN(u) ? u : 2048 };
  });
  return hard;
}

export interface EngineProbe {
  engine: EngineName;
  /** The CLI was found. */
  cli: boolean;
  /** The engine answered (daemon/socket reachable): its server version. */
  serverVersion: string | null;
  /** A container actually started (`run --rm IMAGE true` on a local image), when one was tried. */
  canRun: boolean | null;
  detail: string;
  /** What to do when the engine cannot run containers, or null. */
  hint: string | null;
}

export const ENGINE_HINTS: Record<EngineName, { install: string; server: string }> = {
  podman: {
    install: 'install podman (and runc): `sudo apt-get install podman runc` (Debian/Ubuntu)',
    server:
      'podman is installed but `podman info` fails; run the lab as root, or set up rootless podman (`/etc/subuid`, `/etc/subgid`), and check `podman info`',
  },
  docker: {
    install: 'install Docker Engine (https://docs.docker.com/engine/install/) or use --backend podman',
    server:
      'the docker CLI is installed but no Docker daemon answers: start it (`sudo systemctl start docker`), add yourself to the docker group, or use --backend podman',
  },
};

/** Is the engine there, does it answer, and (when `trialImage` is given) can it start a container? */
export async function detectContainerEngine(engine: EngineName, trialImage?: string): Promise<EngineProbe> {
  const which = await execQuiet('sh', ['-c', `command -v ${engine}`]);
  if (!which.ok)
    return {
      engine,
      cli: false,
      serverVersion: null,
      canRun: null,
      detail: `${engine} is not installed`,
      hint: ENGINE_HINTS[engine].install,
    };
  const args =
    engine === 'docker'
      ? ['version', '--format', '{{.Server.Version}}']
      : ['version', '--format', '{{.Server.Version}}'];
  // Generous: a busy engine (builds running) answers slowly, and the answer is cached per process.
  const probe = await engineExec(engine, args, 45_000);
  const version = probe.stdout.trim();
  if (!probe.ok || !version || version === '<no value>') {
    const said = (probe.stderr.trim().split('\n').pop() ?? '').slice(0, 200);
    return {
      engine,
      cli: true,
      serverVersion: null,
      canRun: false,
      detail: `${engine} is installed but no engine answers${said ? `: ${said}` : ''}`,
      hint: ENGINE_HINTS[engine].server,
    };
  }
  if (!trialImage)
    return {
      engine,
      cli: true,
      serverVersion: version,
      canRun: null,
      detail: `${engine} ${version} answers`,
      hint: null,
    };
  const limits = await hostHardLimits();
  const trial = await engineExec(
    engine,
    ['run', '--rm', '--network', 'none', ...ulimitArgs(limits), '--label', `${LABEL_KIND}=probe`, trialImage, 'true'],
    60_000,
  );
  if (!trial.ok) {
    const said = (trial.stderr.trim().split('\n').pop() ?? '').slice(0, 300);
    return {
      engine,
      cli: true,
      serverVersion: version,
      canRun: false,
      detail: `${engine} ${version} answers but cannot start a container: ${said}`,
      hint: runFailureHint(engine, said),
    };
  }
  return {
    engine,
    cli: true,
    serverVersion: version,
    canRun: true,
    detail: `${engine} ${version} runs containers`,
    hint: null,
  };
}

function runFailureHint(engine: EngineName, said: string): string {
  if (/crun|cgroup/i.test(said))
    return `the OCI runtime refused this machine's cgroup layout: install runc (\`sudo apt-get install runc\`); the lab then uses \`${engine} --runtime runc\``;
  if (/ulimit|rlimit|operation not permitted/i.test(said))
    return "the container's ulimits exceed this user's hard limits; raise them (`ulimit -H`) or run as root";
  return `check \`${engine} run --rm IMAGE true\` by hand`;
}

/** Default ulimits for a container: podman's own defaults can exceed the hard limits and then nothing starts. */
export const DEFAULT_NOFILE: [number, number] = [1024, 4096];
export const DEFAULT_NPROC: [number, number] = [1024, 2048];

export function ulimitArgs(hardLimits: HardLimits, openFiles = DEFAULT_NOFILE[0]): string[] {
  const nofileHard = Math.min(hardLimits.openFiles, Math.max(DEFAULT_NOFILE[1], openFiles));
  const nofileSoft = Math.min(openFiles, nofileHard);
  const nprocHard = Math.min(hardLimits.processes, DEFAULT_NPROC[1]);
  const nprocSoft = Math.min(DEFAULT_NPROC[0], nprocHard);
  return ['--ulimit', `nofile=${nofileSoft}:${nofileHard}`, '--ulimit', `nproc=${nprocSoft}:${nprocHard}`];
}
