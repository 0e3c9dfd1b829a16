/**
 * Skipping a test says why, in the test output: `ctx.skip(reason !== null, reason ?? undefined)` inside the
 * test, with a reason from here. The skip reporter (test/helpers/skip-reporter.ts) lists every skip with its
 * note after the run, and under CI fails the run when a test was skipped for a program that
 * `npm run bootstrap` installs (a note starting with MISSING_TOOL): a fresh machine must run every such test.
 */
import { spawnSync } from 'node:child_process';

/** The prefix of a skip note for a program bootstrap installs (build/bootstrap.sh PACKAGES). */
export const MISSING_TOOL = 'missing tool:';
/** The prefix of a skip note for something bootstrap cannot provide (hardware, an opt-in file, PyPI-only modules). */
export const OPTIONAL = 'optional:';

function onPath(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v '${program.replaceAll("'", '')}'`], { stdio: 'ignore' }).status === 0;
}

/** Null when `program` is on PATH; else the skip note naming the Debian package that bootstrap installs. */
export function missingProgram(program: string, debianPackage: string): string | null {
  return onPath(program)
    ? null
    : `${MISSING_TOOL} ${program} is not installed (Debian package ${debianPackage}; npm run bootstrap installs it)`;
}

/** A skip note for what bootstrap cannot install; `why` says what is missing and how to provide it. */
export function optionalSkip(why: string): string {
  return `${OPTIONAL} ${why}`;
}
