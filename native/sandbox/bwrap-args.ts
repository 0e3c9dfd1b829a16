/**
 * The command line that starts a sandbox: a tiny launcher shell that joins the sandbox's cgroup (if any),
 * sets the per-process rlimits that may be set from outside, opens the seccomp program on fd 3, then execs
 * bwrap. Inside the new user namespace only RLIMIT_NPROC remains to set: for a command, `prlimit --nproc`
 * execs it; for the lab's interactive shell, the first line of its rc file sets it (no extra program start).
 * Pure: unit-tested on its output.
 *
 * Why RLIMIT_NPROC is set inside: it counts a user's tasks per user namespace level, and the level above
 * the sandbox holds all of the host user's processes (a user namespace records its creator's RLIMIT_NPROC
 * as the cap for that level). Set on bwrap itself, a low cap would refuse bwrap's own forks on a busy
 * desktop; set inside, it counts only the sandbox's processes. The other rlimits (address space, file
 * size, open files, CPU time, core size) are per process and plain inheritance: setting them on the
 * launcher, as hard limits, caps bwrap and everything it starts exactly as setting them inside would, and
 * nothing inside can raise a hard limit (that needs CAP_SYS_RESOURCE in the host's user namespace).
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { pidCapPrefix, type PidCap } from './pid-cap';
import { SANDBOX_HOSTNAME, type RuntimeFiles } from './runtime-files';
import { SHELL_NPROC_ENV } from './shell-start';
import type { Mount, SandboxLimits } from './types';

export const MIB = 1024 * 1024;
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
export const DEFAULT_WORKDIR = '/app';

/** Top-level entries of merged-/usr systems (/bin -> usr/bin) mirrored as they are on the host. */
const ROOT_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

export interface BwrapFeatures {
  /** bwrap >= 0.8: --disable-userns. */
  disableUserns: boolean;
  /** bwrap >= 0.5: --size / --perms for tmpfs. */
  tmpfsSize: boolean;
}

export interface LaunchPlan {
  bwrapPath: string;
  prlimitPath: string;
  workspace: string;
  workdir: string;
  mounts: Mount[];
  env: Record<string, string>;
  net: boolean;
  limits: SandboxLimits;
  /** 'run': no terminal, its own session (no way back to the caller's terminal). 'pty': a private terminal. */
  mode: 'run' | 'pty';
  /** The memory cap is a cgroup's (whole sandbox): no per-process address-space rlimit then. */
  cgroupMemory: boolean;
  cgroupProcsFiles: string[];
  features: BwrapFeatures;
  files: RuntimeFiles;
  argv: string[];
  /** argv is the lab's interactive bash (bubblewrap.ts spawnShell), whose rc file sets RLIMIT_NPROC: no prlimit. */
  shell?: boolean;
  /** Start here instead of the workdir (inside it). */
  cwd?: string;
  /** name -> target links in ALIAS_DIR, which is first on PATH. */
  commandAliases?: Record<string, string>;
  /** Root without cgroups: bwrap starts inside a pid namespace of capped size (pid-cap.ts). */
  pidCap?: PidCap | null;
}

/** Where command aliases live inside the sandbox (on the /run tmpfs); put first on PATH when there are any. */
export const ALIAS_DIR = '/run/t1lab/bin';

/**
 * Arguments: the seccomp file (or ''), cgroup.procs files, `--`, ulimit option/value pairs, `--`, bwrap's
 * argv. Any failure stops the start with status 125 and a line saying what failed.
 */
export const LAUNCHER_SCRIPT = [
  's=$1; shift',
  'while [ "$1" != -- ]; do echo $$ >"$1" || { echo "t1lab: cannot join cgroup $1" >&2; exit 125; }; shift; done',
  'shift',
  'while [ "$1" != -- ]; do ulimit "$1" "$2" || { echo "t1lab: cannot set limit: ulimit $1 $2" >&2; exit 125; }; shift 2; done',
  'shift',
  'if [ -n "$s" ]; then exec "$@" 3<"$s"; else exec "$@"; fi',
].join('\n');

/** The environment every sandbox starts from; the task's variables are added on top. */
export function baseEnv(mode: 'run' | 'pty'): Record<string, string> {
  return {
    PATH: SANDBOX_PATH,
    HOME: '/root',
    TERM: mode === 'pty' ? 'xterm-256color' : 'dumb',
    LANG: 'C.UTF-8',
    USER: 'root',
    LOGNAME: 'root',
    SHELL: '/bin/bash',
  };
}

/** The file size rlimit: the smaller of the file cap and the workspace cap (one file can never outgrow the workspace). */
export function effectiveFileSizeMb(limits: SandboxLimits): number {
  return Math.min(limits.fileSizeMb, limits.workspaceMb);
}

/**
 * The launcher's `ulimit` pairs: hard and soft together unless -S. Units are the POSIX shell's (dash, bash
 * in sh mode and busybox agree): -f in 512-byte blocks, -v in KiB; -n, -t and -c as given.
 */
export function launcherLimits(plan: Pick<LaunchPlan, 'limits' | 'cgroupMemory'>): string[] {
  const l = plan.limits;
  const pairs = [
    ['-n', l.openFiles],
    ['-f', effectiveFileSizeMb(l) * 2048],
    // SIGXCPU at the soft limit, SIGKILL a second later at the hard one.
    ['-t', l.cpuSeconds + 1],
    ['-St', l.cpuSeconds],
    ['-c', 0],
  ];
  // With a cgroup the memory cap is the whole sandbox's: no per-process address-space limit then.
  if (!plan.cgroupMemory) pairs.push(['-v', l.memoryMb * 1024]);
  return pairs.flatMap(([flag, value]) => [String(flag), String(value)]);
}

/** What runs inside the namespace: argv behind `prlimit --nproc`, or the lab's shell as it is (its rc sets the cap). */
export function innerCommand(plan: Pick<LaunchPlan, 'limits' | 'prlimitPath' | 'argv' | 'shell'>): string[] {
  if (plan.shell) return plan.argv;
  return [plan.prlimitPath, `--nproc=${plan.limits.processes}`, '--', ...plan.argv];
}

let rootEntries: Map<string, ReturnType<typeof readRootEntry>> | null = null;

/** The host's top-level links and dirs, read once (they do not change while the lab runs). */
function hostRootEntry(name: string): ReturnType<typeof readRootEntry> {
  rootEntries ??= new Map(ROOT_LINKS.map((n) => [n, readRootEntry(n)]));
  return rootEntries.get(name) ?? null;
}

function readRootEntry(name: string): { kind: 'link'; target: string } | { kind: 'dir' } | null {
  try {
    const st = lstatSync(`/${name}`);
    if (st.isSymbolicLink()) return { kind: 'link', target: readlinkSync(`/${name}`) };
    if (st.isDirectory()) return { kind: 'dir' };
  } catch {
    // absent on this host
  }
  return null;
}

export function bwrapArgs(plan: LaunchPlan): string[] {
  const l = plan.limits;
  const a: string[] = ['--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
  if (!plan.net) a.push('--unshare-net');
  a.push('--uid', '0', '--gid', '0', '--hostname', SANDBOX_HOSTNAME, '--die-with-parent', '--cap-drop', 'ALL');
  if (plan.mode === 'run') a.push('--new-session');
  if (plan.features.disableUserns) a.push('--disable-userns');
  if (plan.files.seccomp) a.push('--seccomp', '3');
  a.push('--clearenv');
  for (const [k, v] of Object.entries(plan.env)) a.push('--setenv', k, v);
  // Last, so that no variable of the task can replace it.
  if (plan.shell) a.push('--setenv', SHELL_NPROC_ENV, String(l.processes));

  // System directories, read-only.
  a.push('--ro-bind', '/usr', '/usr');
  for (const name of ROOT_LINKS) {
    const entry = hostRootEntry(name);
    if (entry?.kind === 'link') a.push('--symlink', entry.target, `/${name}`);
    else if (entry?.kind === 'dir') a.push('--ro-bind', `/${name}`, `/${name}`);
  }
  a.push('--proc', '/proc', '--dev', '/dev');
  const tmpfs = (path: string, mb: number, perms: string) => {
    if (plan.features.tmpfsSize) a.push('--perms', perms, '--size', String(mb * MIB));
    a.push('--tmpfs', path);
  };
  // --dev makes /dev a tmpfs without a size: /dev/shm gets its own, capped.
  tmpfs('/dev/shm', l.tmpMb, '1777');
  tmpfs('/tmp', l.tmpMb, '1777');
  tmpfs('/root', l.tmpMb, '0700');
  tmpfs('/run', 1, '0755');
  a.push('--dir', '/var', '--symlink', '../tmp', '/var/tmp');
  const aliases = Object.entries(plan.commandAliases ?? {});
  if (aliases.length) {
    a.push('--dir', ALIAS_DIR);
    for (const [name, target] of aliases) a.push('--symlink', target, `${ALIAS_DIR}/${name}`);
  }

  // A minimal /etc (runtime-files.ts): generated identity files, copies of allowlisted host files, and
  // allowlisted host directories bound on top, all read-only.
  a.push('--ro-bind', plan.files.etcDir, '/etc');
  for (const dir of plan.files.etcSubdirs) a.push('--ro-bind', dir, dir);
  if (plan.net) {
    try {
      a.push('--ro-bind', realpathSync('/etc/resolv.conf'), '/etc/resolv.conf');
    } catch {
      // no resolver configured on the host
    }
  }

  a.push('--bind', plan.workspace, plan.workdir);
  for (const m of plan.mounts) a.push(m.readOnly ? '--ro-bind' : '--bind', m.host, m.sandbox);
  // The root and /dev are tmpfs without a size: once everything is in place, nothing more may be written
  // there (only the capped tmpfs mounts, the workspace and writable mounts stay writable).
  a.push('--remount-ro', '/dev', '--remount-ro', '/');
  a.push('--chdir', plan.cwd ?? plan.workdir);
  a.push('--', ...innerCommand(plan));
  return a;
}

/** The full argv to spawn: /bin/sh launcher, then bwrap. */
export function launchCommand(plan: LaunchPlan): { file: string; args: string[] } {
  return {
    file: '/bin/sh',
    args: [
      '-c',
      LAUNCHER_SCRIPT,
      't1lab-sandbox',
      plan.files.seccomp ?? '',
      ...plan.cgroupProcsFiles,
      '--',
      ...launcherLimits(plan),
      '--',
      ...(plan.pidCap ? pidCapPrefix(plan.pidCap) : []),
      plan.bwrapPath,
      ...bwrapArgs(plan),
    ],
  };
}

/** The environment of the launcher process itself (bwrap clears it again inside with --clearenv). */
export const LAUNCHER_ENV: Record<string, string> = { PATH: SANDBOX_PATH, LANG: 'C.UTF-8' };
