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
import { readdirSync, readFileSync, statfsSync } from 'node:fs';
import {
  childrenIndex,
  childrenOf,
  descendants,
  hasChildrenLists,
  killQuietly,
  memoryBytes,
  openFileCount,
  readProcessTable,
  readStat,
  writesUnder,
  type ProcInfo,
} from './proc';
import type { LimitName, SandboxLimits } from './types';
import { treeUsage } from './workspace-size';

/** How often the process tree is checked, ms. Fast enough to stop a fork bomb within a second. */
export const MONITOR_TICK_MS = 250;
/** Ticks at the process cap before the tree counts as a fork bomb. */
const PINNED_TICKS = 3;
/** Workspace walks are spaced by at least this, and by 20x the last walk's duration. */
const MIN_WALK_INTERVAL_MS = 500;
/** The sandbox's size-capped tmpfs mounts, and how little room left counts as full. */
const TMPFS_MOUNTS = ['/tmp', '/root', '/dev/shm'];
const TMPFS_FULL_BYTES = 64 * 1024;
/** Open-file counts (and, with a cgroup, the process list) are sampled every this many ticks. */
const FD_SAMPLE_TICKS = 8;

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
  /**
   * Bytes the workspace may hold: the cap, or what it already held at start when that was more (a big
   * workspace may be used as long as it does not grow).
   */
  workspaceAllowance: number;
  cgroup: SandboxCgroup | null;
  /** RLIMIT_NPROC is not enforced for the host's root user: then the monitor is the only process cap. */
  nprocEnforced: boolean;
  /**
   * Launchers between rootPid and the outer bwrap, each the only child of the one above (pid-cap.ts puts
   * one there); killing rootPid still ends them all.
   */
  wrapperDepth?: number;
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
  forksRefusedReported: boolean;
  stopped: boolean;
  /** Host pid of the outer bwrap (rootPid unless wrapped), found on the first tick. */
  bwrapPid: number | null;
  /** Host pid of the sandbox's init (bwrap's pid 1), found on the first tick. */
  initPid: number | null;
  tmpFullReported: boolean;
}

const watched = new Set<Watched>();
let timer: ReturnType<typeof setInterval> | null = null;
let tickCount = 0;
/** Sandboxes ever watched by this process (system samples count those started between two samples). */
let startedCount = 0;

/** Start watching a sandbox; the returned function stops it (call it when the sandbox has ended). */
export function watchSandbox(target: MonitorTarget): () => void {
  const w: Watched = {
    target,
    pinnedTicks: 0,
    lastOom: 0,
    lastPidsMax: 0,
    walking: false,
    nextWalkAt: 0,
    workspaceFiredAt: null,
    openFilesReported: false,
    forksRefusedReported: false,
    stopped: false,
    bwrapPid: null,
    initPid: null,
    tmpFullReported: false,
  };
  watched.add(w);
  startedCount++;
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

/** Sandboxes this process has started watching since it began (a counter that only grows). */
export function watchedEver(): number {
  return startedCount;
}

function tick(): void {
  tickCount++;
  if (watched.size === 0) return;
  // The init of sandboxes started since the last tick: bwrap's oldest child. Each sandbox is then read
  // through its own /proc (cost in proportion to the sandbox, not the host).
  let table: Map<number, ProcInfo> | null = null;
  const oldestChild = (parent: number): number | null => {
    let children: ProcInfo[];
    if (hasChildrenLists()) children = childrenOf(parent).flatMap((pid) => readStat(pid) ?? []);
    else {
      table ??= readProcessTable();
      children = [...table.values()].filter((p) => p.ppid === parent);
    }
    return children.sort((a, b) => a.startTicks - b.startTicks)[0]?.pid ?? null;
  };
  for (const w of watched) {
    if (w.initPid !== null) continue;
    let bwrap: number | null = w.target.rootPid;
    for (let level = 0; level < (w.target.wrapperDepth ?? 0) && bwrap !== null; level++) bwrap = oldestChild(bwrap);
    w.bwrapPid = bwrap;
    w.initPid = bwrap === null ? null : oldestChild(bwrap);
  }
  for (const w of [...watched]) {
    if (w.initPid === null) continue;
    try {
      check(w);
    } catch {
      // a process vanished mid-check: the next tick sees the new state
    }
  }
}

interface InnerProcess {
  /** Pid inside the sandbox. */
  pid: number;
  threads: number;
  comm: string;
}

/** The sandbox's processes as its own /proc lists them (reached through its init's root). */
function innerProcesses(initPid: number): InnerProcess[] {
  const base = `/proc/${initPid}/root/proc`;
  const out: InnerProcess[] = [];
  for (const name of readdirSync(base)) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    try {
      const stat = readFileSync(`${base}/${name}/stat`, 'latin1');
      const close = stat.lastIndexOf(')');
      out.push({
        pid: Number(name),
        threads: Number(stat.slice(close + 2).split(' ')[17]) || 1,
        comm: stat.slice(stat.indexOf('(') + 1, close),
      });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

function innerPath(initPid: number, pid: number, file: string): string {
  return `/proc/${initPid}/root/proc/${pid}/${file}`;
}

function fullTree(w: Watched): { table: Map<number, ProcInfo>; all: number[]; spared: Set<number> } {
  const table = readProcessTable();
  return { table, ...sandboxTree(w, table, childrenIndex(table)) };
}

/** The sandbox's processes (not its outer bwrap) and the ones a pty stop must spare: bwrap's init and the shell. */
function sandboxTree(
  w: Watched,
  table: Map<number, ProcInfo>,
  index: Map<number, number[]>,
): { all: number[]; spared: Set<number> } {
  const top = w.bwrapPid ?? w.target.rootPid;
  const tree = descendants(top, index).slice(1);
  const oldest = (pids: number[] | undefined) =>
    pids?.reduce<number | undefined>(
      (best, p) =>
        best === undefined || (table.get(p)?.startTicks ?? 0) < (table.get(best)?.startTicks ?? 0) ? p : best,
      undefined,
    );
  const init = oldest(index.get(top));
  // The shell is init's oldest child; orphans reparented to init come later.
  const shell = init !== undefined ? oldest(index.get(init)) : undefined;
  const spared = new Set<number>([init, shell].filter((p): p is number => p !== undefined));
  return { all: tree, spared };
}

/** What one tick reads of a sandbox: its processes (sampled with a cgroup), its task count, the cgroup's events. */
interface Reading {
  initPid: number;
  inner: InnerProcess[] | null;
  tasks: number;
  events: ReturnType<SandboxCgroup['events']> | undefined;
}

/** One tick's checks of one sandbox, in order; a check that stops the sandbox ends the tick for it. */
function check(w: Watched): void {
  const reading = readSandbox(w);
  if (checkProcesses(w, reading)) return;
  if (checkMemory(w, reading)) return;
  checkOpenFiles(w, reading);
  checkTmpfs(w, reading.initPid);
  walkWorkspace(w);
}

function readSandbox(w: Watched): Reading {
  const t = w.target;
  const initPid = w.initPid as number;
  const cgroupTasks = t.cgroup?.tasks();
  // Inner pids 1 and 2 are bwrap's init and the command (the shell): a pty stop spares them.
  const inner =
    cgroupTasks === undefined || cgroupTasks === null || !t.cgroup || tickCount % FD_SAMPLE_TICKS === 0
      ? innerProcesses(initPid)
      : null;
  // With a cgroup, pids.current counts the outer bwrap too.
  const tasks = cgroupTasks != null ? cgroupTasks - 1 : (inner ?? []).reduce((n, p) => n + p.threads, 0);
  return { initPid, inner, tasks, events: t.cgroup?.events() };
}

/**
 * Processes: the cgroup's refusal counter, or a tree pinned at (or, without kernel enforcement, over) the cap,
 * stops the tree as a fork bomb. True when it stopped something.
 */
function checkProcesses(w: Watched, { tasks, events }: Reading): boolean {
  const t = w.target;
  const refused = events ? events.pidsMax > w.lastPidsMax : false;
  if (events) w.lastPidsMax = events.pidsMax;
  const atCap = tasks >= t.limits.processes - 1;
  w.pinnedTicks = atCap || refused ? w.pinnedTicks + 1 : 0;
  if ((!t.nprocEnforced && !t.cgroup && tasks > t.limits.processes) || w.pinnedTicks >= PINNED_TICKS) {
    w.pinnedTicks = 0;
    w.forksRefusedReported = true;
    const tree = fullTree(w);
    stop(
      w,
      'processes',
      tree.all,
      tree.spared,
      `${describeLimit('processes', t.limits)} reached: a fork bomb or runaway spawning`,
    );
    return true;
  }
  if (refused && !w.forksRefusedReported) {
    // The kernel refused forks at the cap: report it even if the spawning dies down by itself.
    w.forksRefusedReported = true;
    t.onFire({
      limit: 'processes',
      action: 'none',
      killed: [],
      message: `${describeLimit('processes', t.limits)} reached: new processes were refused`,
    });
  }
  return false;
}

/** Memory: a cgroup OOM kill already happened; else the tree's sum against the cap. True when it stopped the sandbox. */
function checkMemory(w: Watched, { initPid, inner, events }: Reading): boolean {
  const t = w.target;
  if (events && events.oomKills > w.lastOom) {
    w.lastOom = events.oomKills;
    const message = `${describeLimit('memoryMb', t.limits)} exceeded: the kernel stopped the largest process`;
    // In `run` a command that lost a process to the OOM killer has failed: stop it all, as without cgroups.
    if (t.mode === 'run') {
      const tree = fullTree(w);
      stop(w, 'memoryMb', tree.all, tree.spared, message);
      return true;
    }
    t.onFire({ limit: 'memoryMb', action: 'processes', killed: [], message });
    return false;
  }
  if (t.cgroup || !inner) return false;
  let total = 0;
  for (const p of inner)
    total += memoryBytes(innerPath(initPid, p.pid, 'smaps_rollup'), innerPath(initPid, p.pid, 'statm'));
  if (total <= t.limits.memoryMb * 1024 * 1024) return false;
  return stopLargest(w);
}

/** Over the memory cap without a cgroup: `run` stops the sandbox, `pty` its largest process but init and the shell. */
function stopLargest(w: Watched): boolean {
  const t = w.target;
  const tree = fullTree(w);
  let largest = { pid: -1, bytes: -1 };
  for (const pid of tree.all) {
    const bytes = memoryBytes(`/proc/${pid}/smaps_rollup`, `/proc/${pid}/statm`);
    if (!tree.spared.has(pid) && bytes > largest.bytes) largest = { pid, bytes };
  }
  const message = `${describeLimit('memoryMb', t.limits)} exceeded by the sandbox's processes together`;
  if (t.mode === 'run' || largest.pid < 0) {
    stop(w, 'memoryMb', tree.all, tree.spared, message);
    return true;
  }
  killQuietly(largest.pid);
  t.onFire({
    limit: 'memoryMb',
    action: 'processes',
    killed: [largest.pid],
    message: `${message}: stopped ${tree.table.get(largest.pid)?.comm ?? 'a process'}`,
  });
  return false;
}

/** Open files: report a process seen at the cap, once (sampled: reading fd tables costs more). */
function checkOpenFiles(w: Watched, { initPid, inner }: Reading): void {
  const t = w.target;
  if (w.openFilesReported || tickCount % FD_SAMPLE_TICKS !== 0 || !inner) return;
  for (const p of inner) {
    if (openFileCount(innerPath(initPid, p.pid, 'fd')) >= t.limits.openFiles - 1) {
      w.openFilesReported = true;
      t.onFire({
        limit: 'openFiles',
        action: 'none',
        killed: [],
        message: `${describeLimit('openFiles', t.limits)} reached by ${p.comm}`,
      });
      break;
    }
  }
}

/** The tmpfs mounts: ENOSPC is all a program sees, so report a full one (once until it has room again). */
function checkTmpfs(w: Watched, initPid: number): void {
  if (tickCount % FD_SAMPLE_TICKS !== 0) return;
  const full = TMPFS_MOUNTS.find((m) => {
    try {
      const st = statfsSync(`/proc/${initPid}/root${m}`);
      return st.bavail * st.bsize < TMPFS_FULL_BYTES;
    } catch {
      return false;
    }
  });
  if (full && !w.tmpFullReported)
    w.target.onFire({
      limit: 'tmpMb',
      action: 'none',
      killed: [],
      message: `${describeLimit('tmpMb', w.target.limits)} reached: ${full} is full`,
    });
  w.tmpFullReported = full !== undefined;
}

/** Workspace size: an asynchronous walk, spaced by its own cost. */
function walkWorkspace(w: Watched): void {
  if (w.walking || performance.now() < w.nextWalkAt) return;
  w.walking = true;
  const cap = w.target.workspaceAllowance;
  treeUsage(w.target.workspace, cap)
    .then((usage) => {
      w.nextWalkAt = performance.now() + Math.max(MIN_WALK_INTERVAL_MS, usage.walkMs * 20);
      if (w.stopped || usage.bytes <= cap) {
        w.workspaceFiredAt = null;
        return;
      }
      // Fire once per excess: again only if it keeps growing after the first stop.
      if (w.workspaceFiredAt !== null && usage.bytes <= w.workspaceFiredAt) return;
      w.workspaceFiredAt = usage.bytes;
      stopWorkspaceWriters(w);
    })
    .catch(() => {})
    .finally(() => (w.walking = false));
}

/** Over the workspace cap: `run` stops the sandbox; `pty` the processes writing under the workdir (else all but init and the shell). */
function stopWorkspaceWriters(w: Watched): void {
  const t = w.target;
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
  t.onFire({
    limit: 'workspaceMb',
    action: 'processes',
    killed: victims,
    message: `${message}: stopped ${victims.map((p) => fresh.get(p)?.comm ?? p).join(', ')}`,
  });
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
  t.onFire({
    limit,
    action: 'processes',
    killed: victims,
    message: `${message}: stopped ${victims.length} process${victims.length === 1 ? '' : 'es'}`,
  });
}

/**
 * Stop-then-kill until nothing new appears: a stopped process cannot fork, so a fork bomb converges.
 * With `sweep`, every non-spared process of the tree is a victim (new ones included).
 */
function stopProcesses(victims: Set<number>, w: Watched, spared: Set<number>, sweep: boolean): number[] {
  const killed = new Set<number>();
  for (let round = 0; round < 50; round++) {
    const table = readProcessTable();
    const tree = descendants(w.bwrapPid ?? w.target.rootPid, childrenIndex(table)).slice(1);
    const current = sweep
      ? tree.filter((p) => !spared.has(p))
      : tree.filter((p) => victims.has(p) || isDescendantOfAny(p, victims, table));
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
