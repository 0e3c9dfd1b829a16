/**
 * Is a process still there? Signal 0 checks without touching it. EPERM means it exists but belongs to
 * another user: alive, and not ours to clean up after.
 */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
