/** Shared bits for tests that start real sandboxes: a backend, small limits, and a check that nothing is left. */
import { readdirSync, readFileSync } from 'node:fs';
import {
  createSandboxBackend,
  defaultLimits,
  watchedCount,
  type SandboxLimits,
  type SandboxSpec,
} from '../../native/sandbox/index';

export const backend = createSandboxBackend();
export const backendWithoutCgroups = createSandboxBackend('bubblewrap', { cgroups: false });

/** Limits small enough that every test finishes in seconds. */
export function testLimits(overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  return defaultLimits({
    wallSeconds: 30,
    processes: 64,
    memoryMb: 256,
    workspaceMb: 64,
    tmpMb: 64,
    cpuSeconds: 30,
    ...overrides,
  });
}

export function specFor(
  workspace: string,
  overrides: Partial<SandboxLimits> = {},
  extra: Partial<SandboxSpec> = {},
): SandboxSpec {
  return { workspace, net: false, limits: testLimits(overrides), ...extra };
}

/** Processes descending from this test process whose command is bwrap (a leaked sandbox). */
export function leftoverSandboxes(): number[] {
  const parents = new Map<number, number>();
  const comms = new Map<number, string>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const close = stat.lastIndexOf(')');
      parents.set(Number(name), Number(stat.slice(close + 2).split(' ')[1]));
      comms.set(Number(name), stat.slice(stat.indexOf('(') + 1, close));
    } catch {
      // gone
    }
  }
  const ours = (pid: number): boolean => {
    for (let p = parents.get(pid), depth = 0; p !== undefined && p > 1 && depth < 64; p = parents.get(p), depth++)
      if (p === process.pid) return true;
    return false;
  };
  return [...comms.entries()].filter(([pid, comm]) => comm === 'bwrap' && ours(pid)).map(([pid]) => pid);
}

export function monitorIdle(): boolean {
  return watchedCount() === 0;
}
