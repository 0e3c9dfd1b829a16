/**
 * Which process of a sandbox is blocked reading its terminal: a command waiting for typed input that
 * will never come unless someone types it (`grep x` or `cat` without a file, `read`, a `[Y/n]` question,
 * a pager). Without this, a shell session can only wait such a command out to its timeout: a small
 * policy's `grep -c word` held each of its PPO episodes for the whole 60 s of agent time.
 *
 * Read from the host's /proc: a process whose /proc/PID/syscall shows it inside read(2) or readv(2) on a
 * file descriptor that is a terminal. /proc/PID/syscall needs ptrace access to the process, which the
 * lab has over its own sandboxes (same user, an ancestor); where it is refused or the architecture is
 * not listed, no reader is ever found and callers fall back to their timeouts. Programs that wait in
 * poll(2) or select(2) (editors, a Python REPL) are not recognised: they are left to the timeout too.
 */
import { readFileSync, readlinkSync } from 'node:fs';

/** read(2) and readv(2) by architecture (Node's `process.arch`): x86_64 unistd_64.h, arm64 asm-generic. */
const READ_CALLS: Partial<Record<string, readonly number[]>> = {
  x64: [0, 19],
  arm64: [63, 65],
};

const TERMINAL = /^\/dev\/(?:pts\/\d+|tty\w*|console)$/;

/** The syscall a blocked process is in, and its first argument, from /proc/PID/syscall's text ("0 0x0 ..."). */
export function parseSyscallLine(text: string): { call: number; firstArg: number } | null {
  const [call, arg] = text.trim().split(' ');
  if (call === undefined || arg === undefined || !/^\d+$/.test(call) || !/^0x[0-9a-f]+$/i.test(arg)) return null;
  return { call: Number(call), firstArg: Number.parseInt(arg.slice(2), 16) };
}

/** Whether `pid` is blocked reading a terminal (false when it is gone, running, or unreadable). */
export function readsTerminal(pid: number, arch: string = process.arch): boolean {
  const calls = READ_CALLS[arch];
  if (!calls) return false;
  let line: { call: number; firstArg: number } | null;
  try {
    line = parseSyscallLine(readFileSync(`/proc/${pid}/syscall`, 'latin1'));
  } catch {
    return false;
  }
  if (!line || !calls.includes(line.call)) return false;
  try {
    return TERMINAL.test(readlinkSync(`/proc/${pid}/fd/${line.firstArg}`));
  } catch {
    return false;
  }
}

/** The first of `pids` blocked reading a terminal, or null. */
export function terminalReader(pids: readonly number[], arch: string = process.arch): number | null {
  if (!READ_CALLS[arch]) return null;
  for (const pid of pids) if (readsTerminal(pid, arch)) return pid;
  return null;
}
