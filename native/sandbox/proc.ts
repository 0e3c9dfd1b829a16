/**
 * Reading /proc on the host side: which processes belong to a sandbox (every descendant of its bwrap
 * process; the sandbox's pid-namespace init reaps orphans, so nothing escapes the tree), how many tasks
 * they run, how much memory they use, which files they hold open for writing.
 * A sandbox's tree is read from its processes' own /proc/PID/task/TID/children lists, in proportion to the
 * sandbox; where the kernel has no such lists (CONFIG_PROC_CHILDREN off), from the host's whole process
 * table by ppid, in proportion to the host (hundreds of stat files on a busy machine, on the event loop).
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  comm: string;
  state: string;
  threads: number;
  /** Start time in clock ticks since boot: orders siblings by age. */
  startTicks: number;
}

/** Every process on the host, by pid. Processes that vanish while we read are skipped. */
export function readProcessTable(): Map<number, ProcInfo> {
  const table = new Map<number, ProcInfo>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const name of entries) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const info = readStat(Number(name));
    if (info) table.set(info.pid, info);
  }
  return table;
}

export function readStat(pid: number): ProcInfo | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  // "pid (comm) state ppid ..." where comm may hold spaces and parentheses: split at the last ')'.
  const close = text.lastIndexOf(')');
  const open = text.indexOf('(');
  if (close < 0 || open < 0) return null;
  const rest = text.slice(close + 2).split(' ');
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: rest[0] ?? '?',
    ppid: Number(rest[1]),
    threads: Number(rest[17]) || 1,
    startTicks: Number(rest[19]) || 0,
  };
}

/** Children lists built once per table. */
export function childrenIndex(table: Map<number, ProcInfo>): Map<number, number[]> {
  const index = new Map<number, number[]>();
  for (const p of table.values()) {
    const list = index.get(p.ppid);
    if (list) list.push(p.pid);
    else index.set(p.ppid, [p.pid]);
  }
  return index;
}

/** `root` and all its descendants, root first (breadth-first). */
export function descendants(root: number, index: Map<number, number[]>): number[] {
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const child of index.get(out[i] as number) ?? []) out.push(child);
  return out;
}

let childrenLists: boolean | null = null;

/** Whether this kernel keeps /proc/PID/task/TID/children (checked once, on this process itself). */
export function hasChildrenLists(): boolean {
  childrenLists ??= existsSync(`/proc/${process.pid}/task/${process.pid}/children`);
  return childrenLists;
}

/** Direct children of `pid` (any of its threads may have started them); [] once it is gone. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of threads) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1');
    } catch {
      continue;
    }
    for (const word of text.split(' ')) if (word) out.push(Number(word));
  }
  return out;
}

/**
 * `root` and all its descendants, root first (breadth-first), read from the tree's own children lists
 * where the kernel has them, else from the host's process table.
 */
export function processTree(root: number): number[] {
  if (!hasChildrenLists()) return descendants(root, childrenIndex(readProcessTable()));
  const out = [root];
  const seen = new Set(out);
  for (let i = 0; i < out.length; i++) {
    for (const child of childrenOf(out[i] as number)) {
      if (seen.has(child)) continue;
      seen.add(child);
      out.push(child);
    }
  }
  return out;
}

/** Proportional set size in bytes (shared pages split among their users) from smaps_rollup; falls back to RSS from statm. */
export function memoryBytes(smapsRollup: string, statm: string): number {
  try {
    const text = readFileSync(smapsRollup, 'latin1');
    const m = /^Pss:\s+(\d+) kB/m.exec(text);
    if (m) return Number(m[1]) * 1024;
  } catch {
    // fall through
  }
  try {
    return Number(readFileSync(statm, 'latin1').split(' ')[1]) * 4096;
  } catch {
    return 0;
  }
}

/** Entries of a /proc/PID/fd directory. */
export function openFileCount(fdDir: string): number {
  try {
    return readdirSync(fdDir).length;
  } catch {
    return 0;
  }
}

const O_ACCMODE = 3;

/**
 * Does `pid` hold a file open for writing under `dir`? Paths are as the process sees them (inside the
 * sandbox's mount namespace), so `dir` is the sandbox-side path (e.g. /app).
 */
export function writesUnder(pid: number, dir: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  for (const fd of fds) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (!target.startsWith(prefix)) continue;
      const flags = /^flags:\s+([0-7]+)/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'latin1'));
      if (flags && (parseInt(flags[1] as string, 8) & O_ACCMODE) !== 0) return true;
    } catch {
      // fd closed meanwhile
    }
  }
  return false;
}

/**
 * Kill a process tree (`pids` root first, as `descendants` lists it). Every process is stopped before any is
 * killed: killed one by one, a parent whose child died first could run its next command in between
 * (`(sleep 60; touch f) &` touches f when its sleep is killed, after the agent's time was up).
 */
export function killTreeNow(pids: readonly number[]): void {
  for (const pid of pids) killQuietly(pid, 'SIGSTOP');
  for (const pid of [...pids].reverse()) killQuietly(pid);
}

export function killQuietly(pid: number, signal: NodeJS.Signals = 'SIGKILL'): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}
