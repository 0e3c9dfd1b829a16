/**
 * How the lab's processes ask glibc to keep freed memory for reuse instead of handing it back to the
 * kernel. onnxruntime's CPU arena is off for training sessions (every cached shape would otherwise keep its
 * peak activations: 13 GB after a few PPO steps), so each training run allocates its activations with
 * malloc. glibc serves allocations above 32 MiB (a [4, 1024, 4096] logits tensor is 64 MiB) with a fresh
 * mmap and returns them with munmap: every run then page-faults its whole working set in again, and the
 * kernel's zeroing of those pages cost 40% of a PPO update's CPU time on 2 cores, with the same arithmetic
 * around it running 3x slower from the cold pages. With mmap off and trimming off, the heap grows to the
 * largest run's working set once and later runs reuse it: the process keeps one peak (the largest shape's),
 * not one per cached session as the arena would.
 *
 * glibc reads GLIBC_TUNABLES only when a process starts, so a process that did not start with them re-executes
 * itself with them (`process.execve`, Node 22.15+: same pid, same stdio, same signals) before it loads anything.
 */

/** The tunables: never mmap (the heap serves everything), never trim the heap's top back to the kernel. */
export const ALLOCATOR_TUNABLES = ['glibc.malloc.mmap_max=0', 'glibc.malloc.trim_threshold=68719476736'] as const;

/** Set to `system` to keep glibc's defaults (no re-exec): for comparisons and for allocator debugging. */
export const ALLOCATOR_ENV = 'T1LAB_ALLOCATOR';

/** The GLIBC_TUNABLES value with ours added to what `current` already sets (another tunable of the same name wins). */
export function mergeTunables(current: string | undefined): string {
  const parts = (current ?? '').split(':').filter((p) => p.length > 0);
  const named = new Set(parts.map((p) => p.split('=')[0]));
  for (const t of ALLOCATOR_TUNABLES) if (!named.has(t.split('=')[0])) parts.push(t);
  return parts.join(':');
}

/** Whether `env` already carries every one of our tunables (or names them with values of its own). */
export function hasAllocatorTunables(env: NodeJS.ProcessEnv): boolean {
  return mergeTunables(env.GLIBC_TUNABLES) === (env.GLIBC_TUNABLES ?? '');
}

/** Whether this process runs on glibc (the tunables mean nothing to musl or to other systems). */
function onGlibc(): boolean {
  if (process.platform !== 'linux') return false;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return typeof header?.glibcVersionRuntime === 'string';
}

/** A child process's environment with the tunables (workers that run onnxruntime start with them). */
export function withAllocatorTunables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env[ALLOCATOR_ENV] === 'system' || !onGlibc()) return env;
  return { ...env, GLIBC_TUNABLES: mergeTunables(env.GLIBC_TUNABLES) };
}

/**
 * Re-execute this process with the tunables when it started without them; returns only when it does not
 * (already set, opted out, not glibc, or a Node without `process.execve`, where the lab runs with glibc's
 * defaults: the same results, slower training).
 */
export function reexecWithAllocatorTunables(): void {
  if (process.env[ALLOCATOR_ENV] === 'system' || hasAllocatorTunables(process.env) || !onGlibc()) return;
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if (typeof execve !== 'function') return;
  execve.call(
    process,
    process.execPath,
    [process.execPath, ...process.execArgv, ...process.argv.slice(1)],
    withAllocatorTunables(process.env),
  );
}
