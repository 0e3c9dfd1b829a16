/**
 * The host-side watch over running sandboxes: the limits the kernel cannot enforce or report on its own.
 * One timer serves every sandbox of this process and reads the process table once per tick.
 *
 *   processes  kernel: RLIMIT_NPROC inside the user namespace (and pids.max where cgroups exist). Here:
 *              a tree pinned at the cap is a fork bomb: stopped, reported.
 *   memoryMb   kernel: RLIMIT_AS per process, or memory.max for the whole sandbox with cgroups. Here: the
 *              sum over the tree (proportional set size) above the cap stops the largest process; a cgroup
 *              OOM kill is reported.
 *   workspaceMb  here only: the workspace's disk usage, walked asynchronously; above the cap, the
 *              processes writing into it are stopped (the whole sandbox in `run`).
 *   openFiles  kernel: RLIMIT_NOFILE. Here: a process seen at the cap is reported (not stopped).
 * In `run` mode any stop kills the whole sandbox; in `pty` mode only offenders are stopped and the shell
 * lives on, so an agent can read the notice and carry on.
 */
import type { SandboxCgroup } from './cgroups';
import { describeLimit } from './limits';
import { childrenIndex, descendants, killQuietly, memoryBytes, openFileCount, readProcessTable, writesUnder, type ProcInfo } from './proc';
import type { LimitName, SandboxLimits } from './types';
import { treeUsage } from './workspace-size';

/** How often the process tree is checked, ms. Fast enough to stop a fork bomb within a second. */
export const MONITOR_TICK_MS = 250;
/** Ticks at the process cap before the tree counts as a fork bomb. */
const PINNED_TICKS = 3;
/** Workspace walks are spaced by at least this, and by 20x the last walk's duration. */
const MIN_WALK_INTERVAL_MS = 500;
/** Open-file counts are sampled every this many ticks (reading every fd table costs more). */
const FD_SAMPLE_TICKS = 4;

export interface LimitFired {
  limit: LimitName;
  /** 'sandbox': the whole sandbox was killed; 'processes': only the offenders; 'none': reported only. */
  action: 'sandbox' | 'processes' | 'none';
  killed: number[];
  message: string;
}

export interface MonitorTarget {
  /** Host pid of the launcher/bwrap process; everything of the sandbox descends from it. */
  rootPid: number;
  mode: 'run' | 'pty';
  limits: SandboxLimits;
  /** Host path of the workspace (walked for its size) and where it appears inside (for open-file matching). */
  workspace: string;
  workdir: string;
  cgroup: SandboxCgroup | null;
  /** RLIMIT_NPROC is not enforced for the host's root user: then the monitor is the only process cap. */
  nprocEnforced: boolean;
  onFire(event: LimitFired): void;
}

interface Watched {
  target: MonitorTarget;
  pinnedTicks: number;
  lastOom: number;
  lastPidsMax: number;
  walking: boolean;
  nextWalkAt: number;
  workspaceFiredAt: number | null;
  openFilesReported: boolean;
  stopped: boolean;
}

const watched = new Set<Watched>();
let timer: ReturnType<typeof setInterval> | null = null;
let tickCount = 0;

/** Start watching a sandbox; the returned function stops it (call it when the sandbox has ended). */
export function watchSandbox(target: MonitorTarget): () => void {
  const w: Watched = { target, pinnedTicks: 0, lastOom: 0, lastPidsMax: 0, walking: false, nextWalkAt: 0, workspaceFiredAt: null, openFilesReported: false, stopped: false };
  watched.add(w);
  if (!timer) {
    timer = setInterval(tick, MONITOR_TICK_MS);
    timer.unref();
  }
  return () => {
    w.stopped = true;
    watched.delete(w);
    if (watched.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** Sandboxes watched right now (tests check nothing is left). */
export function watchedCount(): number {
  return watched.size;
}

function tick(): void {
  tickCount++;
  if (watched.size === 0) return;
  const table = readProcessTable();
  const index = childrenIndex(table);
  for (const w of [...watched]) {
    try {
      check(w, table, index);
    } catch {
      // a process vanished mid-check: the next tick sees the new state
    }
  }
}

/** The sandbox's processes (not its outer bwrap) and the ones a pty stop must spare: bwrap's init and the shell. */
function sandboxTree(w: Watched, table: Map<number, ProcInfo>, index: Map<number, number[]>): { all: number[]; spared: Set<number> } {
  const tree = descendants(w.target.rootPid, index).slice(1);
  const oldest = (pids: number[] | undefined) =>
    pids?.reduce<number | undefined>((best, p) => (best === undefined || (table.get(p)?.startTicks ?? 0) < (table.get(best)?.startTicks ?? 0) ? p : best), undefined);
  const init = oldest(index.get(w.target.rootPid));
  // The shell is init's oldest child; orphans reparented to init come later.
  const shell = init !== undefined ? oldest(index.get(init)) : undefined;
  const spared = new Set<number>([init, shell].filter((p): p is number => p !== undefined));
  return { all: tree, spared };
}

function check(w: Watched, table: Map<number, ProcInfo>, index: Map<number, number[]>): void {
  const t = w.target;
  if (!table.has(t.rootPid)) return;
  const { all, spared } = sandboxTree(w, table, index);
  const tasks = all.reduce((n, pid) => n + (table.get(pid)?.threads ?? 1), 0);

  // Processes: the cgroup's refusal counter, or a tree pinned at (or, without kernel enforcement, over) the cap.
  const events = t.cgroup?.events();
  const refused = events ? events.pidsMax > w.lastPidsMax : false;
  if (events) w.lastPidsMax = events.pidsMax;
  const atCap = tasks >= t.limits.processes - 1;
  w.pinnedTicks = atCap || refused ? w.pinnedTicks + 1 : 0;
  if ((!t.nprocEnforced && !t.cgroup && tasks > t.limits.processes) || w.pinnedTicks >= PINNED_TICKS) {
    w.pinnedTicks = 0;
    return stop(w, 'processes', all, spared, `${describeLimit('processes', t.limits)} reached: a fork bomb or runaway spawning`);
  }

  // Memory: a cgroup OOM kill already happened; else the tree's sum against the cap.
  if (events && events.oomKills > w.lastOom) {
    w.lastOom = events.oomKills;
    // In `run` a command that lost a process to the OOM killer has failed: stop it all, as without cgroups.
    if (t.mode === 'run') return stop(w, 'memoryMb', all, spared, `${describeLimit('memoryMb', t.limits)} exceeded: the kernel stopped the largest process`);
    t.onFire({ limit: 'memoryMb', action: 'processes', killed: [], message: `${describeLimit('memoryMb', t.limits)} exceeded: the kernel stopped the largest process` });
  } else if (!t.cgroup) {
    let total = 0;
    let largest = { pid: -1, bytes: -1 };
    for (const pid of all) {
      const bytes = memoryBytes(pid);
      total += bytes;
      if (!spared.has(pid) && bytes > largest.bytes) largest = { pid, bytes };
    }
    if (total > t.limits.memoryMb * 1024 * 1024) {
      const message = `${describeLimit('memoryMb', t.limits)} exceeded by the sandbox's processes together`;
      if (t.mode === 'run' || largest.pid < 0) return stop(w, 'memoryMb', all, spared, message);
      killQuietly(largest.pid);
      t.onFire({ limit: 'memoryMb', action: 'processes', killed: [largest.pid], message: `${message}: stopped ${table.get(largest.pid)?.comm ?? 'a process'}` });
    }
  }

  // Open files: report a process seen at the cap, once.
  if (!w.openFilesReported && tickCount % FD_SAMPLE_TICKS === 0) {
    for (const pid of all) {
      if (openFileCount(pid) >= t.limits.openFiles - 1) {
        w.openFilesReported = true;
        t.onFire({ limit: 'openFiles', action: 'none', killed: [], message: `${describeLimit('openFiles', t.limits)} reached by ${table.get(pid)?.comm ?? 'a process'}` });
        break;
      }
    }
  }

  // Workspace size: an asynchronous walk, spaced by its own cost.
  const now = performance.now();
  if (!w.walking && now >= w.nextWalkAt) {
    w.walking = true;
    const cap = t.limits.workspaceMb * 1024 * 1024;
    treeUsage(t.workspace, cap)
      .then((usage) => {
        w.nextWalkAt = performance.now() + Math.max(MIN_WALK_INTERVAL_MS, usage.walkMs * 20);
        if (w.stopped || usage.bytes <= cap) {
          w.workspaceFiredAt = null;
          return;
        }
        // Fire once per excess: again only if it keeps growing after the first stop.
        if (w.workspaceFiredAt !== null && usage.bytes <= w.workspaceFiredAt) return;
        w.workspaceFiredAt = usage.bytes;
        const fresh = readProcessTable();
        const tree = sandboxTree(w, fresh, childrenIndex(fresh));
        const writers = tree.all.filter((pid) => !tree.spared.has(pid) && writesUnder(pid, t.workdir));
        const message = `${describeLimit('workspaceMb', t.limits)} exceeded`;
        if (t.mode === 'run') return stop(w, 'workspaceMb', tree.all, tree.spared, message);
        const victims = writers.length ? writers : tree.all.filter((pid) => !tree.spared.has(pid));
        if (victims.length === 0) {
          t.onFire({ limit: 'workspaceMb', action: 'none', killed: [], message: `${message}: remove files to get under it` });
          return;
        }
        stopProcesses(new Set(victims), w, tree.spared, false);
        t.onFire({ limit: 'workspaceMb', action: 'processes', killed: victims, message: `${message}: stopped ${victims.map((p) => fresh.get(p)?.comm ?? p).join(', ')}` });
      })
      .catch(() => {})
      .finally(() => (w.walking = false));
  }
}

function stop(w: Watched, limit: LimitName, all: number[], spared: Set<number>, message: string): void {
  const t = w.target;
  if (t.mode === 'run') {
    killQuietly(t.rootPid);
    for (const pid of all) killQuietly(pid);
    t.onFire({ limit, action: 'sandbox', killed: [], message });
    return;
  }
  const victims = stopProcesses(new Set(all.filter((p) => !spared.has(p))), w, spared, true);
  t.onFire({ limit, action: 'processes', killed: victims, message: `${message}: stopped ${victims.length} process${victims.length === 1 ? '' : 'es'}` });
}

/**
 * Stop-then-kill until nothing new appears: a stopped process cannot fork, so a fork bomb converges.
 * With `sweep`, every non-spared process of the tree is a victim (new ones included).
 */
function stopProcesses(victims: Set<number>, w: Watched, spared: Set<number>, sweep: boolean): number[] {
  const killed = new Set<number>();
  for (let round = 0; round < 50; round++) {
    const table = readProcessTable();
    const tree = descendants(w.target.rootPid, childrenIndex(table)).slice(1);
    const current = sweep ? tree.filter((p) => !spared.has(p)) : tree.filter((p) => victims.has(p) || isDescendantOfAny(p, victims, table));
    const alive = current.filter((p) => table.get(p)?.state !== 'Z');
    if (alive.length === 0) break;
    for (const pid of alive) killQuietly(pid, 'SIGSTOP');
    for (const pid of alive) {
      killQuietly(pid, 'SIGKILL');
      killed.add(pid);
    }
  }
  return [...killed];
}

function isDescendantOfAny(pid: number, ancestors: Set<number>, table: Map<number, ProcInfo>): boolean {
  let p = table.get(pid)?.ppid;
  for (let depth = 0; p !== undefined && p > 1 && depth < 256; depth++) {
    if (ancestors.has(p)) return true;
    p = table.get(p)?.ppid;
  }
  return false;
}
