/**
 * A SandboxSpec as an Engine API container-create body: the same contract as run-args.ts (the CLI path),
 * field for field. The image's own file system, WORKDIR, USER and ENV apply; the lab adds its environment,
 * the network switch and the limits (memory and swap, pids, CPUs, explicit ulimits: podman's API needs
 * them). The spec's folders (the bound workspace, its mounts) are binds when the engine shares this
 * machine's files (`bindMounts`, as the CLI path mounts them), else the API backend copies them in and out
 * (files.ts): the engine may be on another machine; the read-only ones into volumes (`volumes`), so that a
 * commit between phases leaves them out.
 */
import type Docker from 'dockerode';
import { MIB } from '../../bwrap-args';
import type { SandboxSpec } from '../../types';
import type { HardLimits } from '../engine';
import { requireImage } from '../run-args';
import { apiUlimits } from './client';

export interface CreateMode {
  tty: boolean;
  stdin: boolean;
  /** The spec's folders as bind mounts (the engine sees this machine's files: shared-files.ts). */
  bindMounts?: boolean;
  /**
   * Volumes of the lab's own, mounted where a copied read-only folder goes: its copy lands in the volume,
   * and a volume is never part of a commit (the bind path's read-only folders are not either).
   */
  volumes?: Array<{ name: string; target: string }>;
}

export function createOptions(
  spec: SandboxSpec,
  argv: string[],
  name: string,
  labels: Record<string, string>,
  mode: CreateMode,
  hard?: HardLimits,
): Docker.ContainerCreateOptions {
  const c = requireImage(spec);
  const l = spec.limits;
  const env = Object.entries(spec.env ?? {}).map(([k, v]) => `${k}=${v}`);
  if (mode.tty) env.push(`TERM=${spec.env?.TERM ?? 'xterm-256color'}`);
  const workdir = spec.cwd ?? spec.workdir;
  return {
    name,
    Image: c.image,
    Cmd: argv,
    Entrypoint: [],
    Env: env,
    Labels: labels,
    Tty: mode.tty,
    OpenStdin: mode.stdin,
    StdinOnce: mode.stdin && !mode.tty,
    AttachStdin: mode.stdin,
    AttachStdout: true,
    AttachStderr: true,
    ...(workdir ? { WorkingDir: workdir } : {}),
    ...(c.user ? { User: c.user } : {}),
    HostConfig: {
      NetworkMode: spec.net ? (c.networkMode ?? 'bridge') : 'none',
      Memory: l.memoryMb * MIB,
      MemorySwap: l.memoryMb * MIB,
      PidsLimit: l.processes,
      ...(c.cpus && c.cpus > 0 ? { NanoCpus: Math.round(c.cpus * 1e9) } : {}),
      Ulimits: [
        ...(apiUlimits(l.openFiles, hard) ?? []),
        { Name: 'cpu', Soft: l.cpuSeconds, Hard: l.cpuSeconds },
        { Name: 'fsize', Soft: l.fileSizeMb * MIB, Hard: l.fileSizeMb * MIB },
      ],
      ...(mode.bindMounts
        ? { Binds: specMounts(spec).map((m) => `${m.host}:${m.sandbox}:${m.readOnly ? 'ro' : 'rw'}`) }
        : {}),
      ...(mode.volumes?.length
        ? { Mounts: mode.volumes.map((v) => ({ Type: 'volume' as const, Source: v.name, Target: v.target })) }
        : {}),
    },
  };
}

/** The folders a spec mounts (bound or copied): the bound workspace (when asked) and every mount. */
export function specMounts(spec: SandboxSpec): Array<{ host: string; sandbox: string; readOnly: boolean }> {
  const out: Array<{ host: string; sandbox: string; readOnly: boolean }> = [];
  if (spec.container?.bindWorkspace && spec.workdir && spec.workdir !== '/')
    out.push({ host: spec.workspace, sandbox: spec.workdir, readOnly: false });
  for (const m of spec.mounts ?? []) out.push(m);
  return out;
}
