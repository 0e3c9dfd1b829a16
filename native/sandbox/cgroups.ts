/**
 * Per-sandbox cgroups, where this process may create them: a cgroup caps memory and processes for the
 * whole sandbox (not per process, as rlimits do) and reports when a cap fired (oom_kill, pids max).
 *
 * What is usable depends on the machine (measured on the dev VM and documented in the README):
 *   - cgroup v2 with delegation (a systemd user session): we may create siblings of our own cgroup when its
 *     parent is writable and already enables the memory and pids controllers for its children;
 *   - cgroup v1 (hybrid hierarchies, as on the dev VM): only root can create groups in the memory and pids
 *     hierarchies;
 *   - otherwise none: limits fall back to rlimits plus the host-side monitor (see monitor.ts).
 * A sandbox joins its cgroup before bwrap starts (the launcher shell writes its own pid, then execs bwrap),
 * so no process of the sandbox ever runs outside it.
 */
import { accessSync, constants, existsSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { processAlive } from '../util/process-alive';
import { killQuietly } from './proc';

export interface CgroupSupport {
  kind: 'cgroup-v2' | 'cgroup-v1' | 'none';
  reason: string;
  /** Where sandbox groups are made: one dir for v2, memory + pids dirs for v1. */
  bases: { memory: string; pids: string } | null;
}

export interface SandboxCgroup {
  /** cgroup.procs files the launcher writes its pid into. */
  procsFiles: string[];
  /** Counters that tell which cap fired. */
  events(): { oomKills: number; pidsMax: number };
  memoryBytes(): number | null;
  /** Tasks (processes and threads) in the group now, or null when unreadable. */
  tasks(): number | null;
  /** SIGKILL every process still in the group (cgroup.kill where the kernel has it, else each pid listed). */
  kill(): Promise<void>;
  /** Remove the group (after its processes are gone). */
  remove(): Promise<void>;
}

let support: CgroupSupport | null = null;
let counter = 0;

export function cgroupSupport(options: { fresh?: boolean; disable?: boolean } = {}): CgroupSupport {
  if (options.disable || process.env.T1LAB_SANDBOX_CGROUPS === '0')
    return { kind: 'none', reason: 'cgroups turned off (T1LAB_SANDBOX_CGROUPS=0)', bases: null };
  if (!support || options.fresh) support = detect();
  return support;
}

interface MountLine {
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

function mounts(): MountLine[] {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [left = '', right = ''] = line.split(' - ');
        const fields = left.split(' ');
        const [fsType = '', , superOpts = ''] = right.split(' ');
        return { mountPoint: (fields[4] ?? '').replace(/\\040/g, ' '), fsType, superOptions: superOpts.split(',') };
      });
  } catch {
    return [];
  }
}

function ownCgroups(): Map<string, string> {
  const map = new Map<string, string>();
  try {
    for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
      const m = /^\d+:([^:]*):(.*)$/.exec(line);
      if (!m) continue;
      const [, controllers = '', path = ''] = m;
      if (controllers === '') map.set('', path);
      for (const c of controllers.split(',')) if (c) map.set(c, path);
    }
  } catch {
    // no cgroups
  }
  return map;
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function readWords(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

function detect(): CgroupSupport {
  const all = mounts();
  const own = ownCgroups();
  const reasons: string[] = [];
  const v2 = all.find((m) => m.fsType === 'cgroup2');
  if (v2 && own.has('')) {
    const parent = dirname(join(v2.mountPoint, own.get('') as string));
    const enabled = readWords(join(parent, 'cgroup.subtree_control'));
    if (!enabled.includes('memory') || !enabled.includes('pids'))
      reasons.push(`cgroup v2: ${parent} does not enable memory and pids for its children`);
    else if (!writable(parent)) reasons.push(`cgroup v2: ${parent} is not writable by this user (no delegation)`);
    else {
      cleanStale(parent);
      return { kind: 'cgroup-v2', reason: `cgroup v2 groups under ${parent}`, bases: { memory: parent, pids: parent } };
    }
  } else reasons.push('cgroup v2: not mounted');
  const v1Memory = all.find((m) => m.fsType === 'cgroup' && m.superOptions.includes('memory'));
  const v1Pids = all.find((m) => m.fsType === 'cgroup' && m.superOptions.includes('pids'));
  if (v1Memory && v1Pids) {
    const memory = join(v1Memory.mountPoint, own.get('memory') ?? '/');
    const pids = join(v1Pids.mountPoint, own.get('pids') ?? '/');
    // The root of a v1 hierarchy has no pids.max of its own; its children do.
    if (
      existsSync(join(memory, 'cgroup.procs')) &&
      existsSync(join(pids, 'cgroup.procs')) &&
      writable(memory) &&
      writable(pids)
    ) {
      cleanStale(memory);
      cleanStale(pids);
      return { kind: 'cgroup-v1', reason: `cgroup v1 groups under ${memory} and ${pids}`, bases: { memory, pids } };
    }
    reasons.push(`cgroup v1: ${memory} / ${pids} are not writable by this user (root only)`);
  } else reasons.push('cgroup v1: no memory and pids hierarchies');
  return { kind: 'none', reason: reasons.join('; '), bases: null };
}

/** Remove empty groups left by lab processes that died without cleaning up. */
function cleanStale(base: string): void {
  let names: string[];
  try {
    names = readdirSync(base).filter((n) => n.startsWith('t1lab-'));
  } catch {
    return;
  }
  for (const name of names) {
    const owner = Number(name.split('-')[1]);
    if (processAlive(owner)) continue;
    try {
      rmdirSync(join(base, name));
    } catch {
      // still has processes, or not ours to remove
    }
  }
}

function counterIn(file: string, key: string): number {
  try {
    const m = new RegExp(`^${key}\\s+(\\d+)`, 'm').exec(readFileSync(file, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Make a group for one sandbox with its caps; null when cgroups are not usable (or creating one failed).
 * Asynchronous: creating and removing a memory cgroup can take the kernel tens of milliseconds, which must
 * not stop the event loop (every other episode's shell and timers wait on it).
 */
export async function createSandboxCgroup(
  limits: { memoryMb: number; processes: number },
  s: CgroupSupport = cgroupSupport(),
): Promise<SandboxCgroup | null> {
  if (s.kind === 'none' || !s.bases) return null;
  const name = `t1lab-${process.pid}-${++counter}`;
  const memDir = join(s.bases.memory, name);
  const pidsDir = join(s.bases.pids, name);
  const dirs = [...new Set([memDir, pidsDir])];
  const memoryBytes = limits.memoryMb * 1024 * 1024;
  try {
    await Promise.all(dirs.map((d) => mkdir(d)));
    if (s.kind === 'cgroup-v2') {
      await writeFile(join(memDir, 'memory.max'), String(memoryBytes));
      if (existsSync(join(memDir, 'memory.swap.max'))) await writeFile(join(memDir, 'memory.swap.max'), '0');
      await writeFile(join(pidsDir, 'pids.max'), String(limits.processes));
    } else {
      await writeFile(join(memDir, 'memory.limit_in_bytes'), String(memoryBytes));
      if (existsSync(join(memDir, 'memory.memsw.limit_in_bytes'))) {
        try {
          await writeFile(join(memDir, 'memory.memsw.limit_in_bytes'), String(memoryBytes));
        } catch {
          // swap accounting off: memory.limit_in_bytes alone caps RAM
        }
      }
      await writeFile(join(pidsDir, 'pids.max'), String(limits.processes));
    }
  } catch {
    await Promise.all(dirs.map((d) => removeDir(d)));
    return null;
  }
  const oomFile = s.kind === 'cgroup-v2' ? join(memDir, 'memory.events') : join(memDir, 'memory.oom_control');
  const usageFile = s.kind === 'cgroup-v2' ? join(memDir, 'memory.current') : join(memDir, 'memory.usage_in_bytes');
  return {
    procsFiles: dirs.map((d) => join(d, 'cgroup.procs')),
    events: () => ({
      oomKills: counterIn(oomFile, 'oom_kill'),
      pidsMax: counterIn(join(pidsDir, 'pids.events'), 'max'),
    }),
    tasks: () => {
      try {
        return Number(readFileSync(join(pidsDir, 'pids.current'), 'utf8').trim());
      } catch {
        return null;
      }
    },
    memoryBytes: () => {
      try {
        return Number(readFileSync(usageFile, 'utf8').trim());
      } catch {
        return null;
      }
    },
    async kill() {
      for (const dir of dirs) {
        if (s.kind === 'cgroup-v2' && existsSync(join(dir, 'cgroup.kill'))) {
          await writeFile(join(dir, 'cgroup.kill'), '1').catch(() => {});
          continue;
        }
        const pids = await readFile(join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
        for (const pid of pids
          .split('\n')
          .map(Number)
          .filter((n) => n > 0))
          killQuietly(pid);
      }
    },
    async remove() {
      // A group is busy until the kernel has released its last task (just after the exit we saw); cgroup v1
      // has no event for that, so a busy group is tried again shortly.
      for (let attempt = 0; attempt < 50; attempt++) {
        if ((await Promise.all(dirs.map((d) => removeDir(d)))).every(Boolean)) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

/** rmdir off the event loop; true when the group is gone. */
async function removeDir(dir: string): Promise<boolean> {
  try {
    await rmdir(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
