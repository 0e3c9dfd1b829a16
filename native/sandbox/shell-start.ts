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
 * stand in for ulimit (the task's environment cannot define functions: variable names are checked). Only
 * /etc/bash.bashrc runs before it (bash reads it first): the host's copy, read-only in the sandbox; no input
 * is read, and nothing of the task or the agent runs, until the rc file has ended.
 */
export function shellRcText(rc: string): string {
  const v = SHELL_NPROC_ENV;
  const fail = `{ builtin echo "t1lab: cannot set the process limit (ulimit -u '\${${v}-}')" >&2; builtin exit 125; }`;
  return [
    `# T1 Lab sandbox: the process cap, set inside the user namespace before anything else runs.`,
    // An empty value would set the cap to 0 (bash reads '' as 0): anything but a number is refused.
    `case \${${v}-} in ''|*[!0-9]*) ${fail} ;; esac`,
    `builtin ulimit -u "$${v}" || ${fail}`,
    `builtin unset -v ${v}`,
    rc,
  ].join('\n');
}
