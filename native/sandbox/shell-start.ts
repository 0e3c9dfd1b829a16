/**
 * The first lines of the lab's interactive sandboxed shell. RLIMIT_NPROC has to be set inside the user
 * namespace (bwrap-args.ts says why); for a shell, its own rc file does that before anything else runs, which
 * saves starting a program (prlimit) between bwrap and bash.
 */

/** Where the value of RLIMIT_NPROC reaches the shell's rc file (unset there at once, like the marker nonce). */
export const SHELL_NPROC_ENV = 'T1LAB_NPROC';

/**
 * The rc file of the lab's interactive shell: RLIMIT_NPROC first (soft and hard: the shell cannot raise it
 * again), before anything that could start a process; if it cannot be set, the shell ends (status 125)
 * instead of running without it. Then the caller's rc. `builtin` so that nothing defined earlier can
 * stand in for ulimit (the task's environment cannot define functions: variable names are checked).
 */
export function shellRcText(rc: string): string {
  return [
    `# T1 Lab sandbox: the process cap, set inside the user namespace before anything else runs.`,
    `builtin ulimit -u "\${${SHELL_NPROC_ENV}:-}" || { builtin echo "t1lab: cannot set the process limit (ulimit -u \${${SHELL_NPROC_ENV}:-})" >&2; builtin exit 125; }`,
    `builtin unset -v ${SHELL_NPROC_ENV}`,
    rc,
  ].join('\n');
}
