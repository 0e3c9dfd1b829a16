/**
 * A SandboxSpec as `podman|docker run` arguments. The image's own file system, WORKDIR, USER and ENV
 * are what the command sees (Harbor's semantics); the lab adds its mounts, its environment, the network
 * switch and the limits, each through an engine flag. Every container is labelled with the lab's pid so
 * that one left behind by a killed lab is swept at the next start (sweep.ts).
 */
import { randomBytes } from 'node:crypto';
import { MIB } from '../bwrap-args';
import type { SandboxSpec } from '../types';
import { LABEL_KIND, LABEL_OWNER, ownerLabel, ulimitArgs, type HardLimits } from './engine';

export function containerName(): string {
  return `t1lab-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Container-only settings of a spec (SandboxSpec.container), checked before anything starts. */
export function requireImage(spec: SandboxSpec): NonNullable<SandboxSpec['container']> {
  const c = spec.container;
  if (!c?.image) throw new Error('container backends need an image (spec.container.image)');
  return c;
}

export function runArgs(
  spec: SandboxSpec,
  name: string,
  hard: HardLimits,
  mode: { tty: boolean; stdin: boolean },
): string[] {
  const c = requireImage(spec);
  const l = spec.limits;
  const args = ['run', '--name', name, '--label', `${LABEL_OWNER}=${ownerLabel()}`, '--label', `${LABEL_KIND}=sandbox`];
  if (mode.tty) args.push('-it');
  else if (mode.stdin) args.push('-i');
  args.push('--network', spec.net ? (c.networkMode ?? 'bridge') : 'none');
  // Memory for the whole container (no swap beyond it), processes for the whole container (a fork bomb stops).
  args.push('--memory', `${l.memoryMb}m`, '--memory-swap', `${l.memoryMb}m`, '--pids-limit', String(l.processes));
  if (c.cpus && c.cpus > 0) args.push('--cpus', String(c.cpus));
  args.push(...ulimitArgs(hard, l.openFiles));
  // Per-process CPU seconds and file size, as the bubblewrap backend sets them (rlimits; fsize in bytes).
  args.push(
    '--ulimit',
    `cpu=${l.cpuSeconds}:${l.cpuSeconds}`,
    '--ulimit',
    `fsize=${l.fileSizeMb * MIB}:${l.fileSizeMb * MIB}`,
  );
  if (c.bindWorkspace && spec.workdir && spec.workdir !== '/') args.push('-v', `${spec.workspace}:${spec.workdir}:rw`);
  for (const m of spec.mounts ?? []) args.push('-v', `${m.host}:${m.sandbox}:${m.readOnly ? 'ro' : 'rw'}`);
  for (const [k, v] of Object.entries(spec.env ?? {})) args.push('-e', `${k}=${v}`);
  if (mode.tty) args.push('-e', `TERM=${spec.env?.TERM ?? 'xterm-256color'}`);
  if (c.user) args.push('--user', c.user);
  if (spec.cwd ?? spec.workdir) args.push('--workdir', (spec.cwd ?? spec.workdir) as string);
  args.push('--entrypoint', '');
  args.push(c.image);
  return args;
}
