/**
 * A kernel cap on a sandbox's tasks where neither RLIMIT_NPROC nor a cgroup gives one: the lab running as
 * root without usable cgroups. The kernel never applies RLIMIT_NPROC to the host's root user (also when it
 * is mapped into a user namespace), so there a fork bomb is held by the host-side monitor alone, which a
 * 250 ms tick lets grow to thousands of processes: enough to exhaust the host's pids and starve the lab.
 *
 * Since Linux 6.14 `kernel.pid_max` is per pid namespace, and a task needs a free pid at every level of
 * its namespaces. The sandbox is started inside one more pid namespace (`unshare --pid --fork
 * --kill-child`) whose first process lowers its pid_max, then execs bwrap: nothing in the sandbox can hold
 * more pids than that level has. Killing the launcher (unshare) kills that first process, the
 * namespace's init, and the kernel takes every process below it along.
 *
 * The size: once a namespace's pids have wrapped, new ones are taken from [RESERVED_PIDS, pid_max) (the
 * kernel skips the low pids daemons hold), so pid_max is RESERVED_PIDS + the cap + 3 (the cap namespace's
 * init, bwrap's init and the one pid that range leaves out): never fewer than `processes` tasks, at most
 * RESERVED_PIDS more before the first wrap. The monitor stops the sandbox above `processes`.
 */
import { existsSync } from 'node:fs';
import { execQuiet } from '../util/exec';

/** The kernel's RESERVED_PIDS (include/linux/pid.h). */
export const RESERVED_PIDS = 300;

export interface PidCap {
  unsharePath: string;
  pidMax: number;
}

/** The pid_max that leaves `processes` tasks free in the cap namespace, after a wrap too. */
export function pidMaxFor(processes: number): number {
  return RESERVED_PIDS + processes + 3;
}

/**
 * The argv that runs `command` inside a fresh pid namespace whose pid_max is `pidMax`. A refused write
 * stops the start with status 125 and a line saying so (bubblewrap.ts reports it).
 */
export function pidCapPrefix(cap: PidCap): string[] {
  return [
    cap.unsharePath,
    '--pid',
    '--fork',
    '--kill-child',
    '/bin/sh',
    '-c',
    'echo "$1" >/proc/sys/kernel/pid_max || { echo "t1lab: cannot cap the sandbox pids" >&2; exit 125; }; shift; exec "$@"',
    't1lab-pid-cap',
    String(cap.pidMax),
  ];
}

let probed: Promise<string | null> | null = null;

/**
 * Where unshare is when this host can cap a pid namespace's pids (root, util-linux unshare, Linux 6.14+),
 * else null. Probed once: a namespace is made and its pid_max written.
 */
export function pidCapAvailable(): Promise<string | null> {
  probed ??= probe();
  return probed;
}

async function probe(): Promise<string | null> {
  if (process.getuid?.() !== 0) return null;
  const unsharePath = ['/usr/bin/unshare', '/bin/unshare'].find((p) => existsSync(p));
  if (!unsharePath) return null;
  const trial = await execQuiet(
    unsharePath,
    [
      '--pid',
      '--fork',
      '--kill-child',
      '/bin/sh',
      '-c',
      'echo 400 >/proc/sys/kernel/pid_max && cat /proc/sys/kernel/pid_max',
    ],
    { timeoutMs: 10_000 },
  );
  return trial.ok && trial.stdout.trim() === '400' ? unsharePath : null;
}
