/**
 * The oracle's preamble: the leading `set -uo pipefail` / `cd /app` lines of a solve.sh. Typed one per turn
 * they are turns of their own (two of six evaluation turns in most episodes), so SFT data shaped for a
 * small turn budget leaves them out: the shell already starts in the workspace, and the verifier still
 * checks every kept episode, so a solution that needed them simply yields no sample.
 */
// `set -e`, `set -uo pipefail`, `set -o errexit -o nounset`: option flags and option names only.
const SET_ONLY = /^set(\s+[-+][a-zA-Z]+)(\s+([-+][a-zA-Z]+|[a-z]+))*\s*;?$/;

export function isPreambleCommand(command: string, workdir = '/app'): boolean {
  const c = command.trim();
  if (c.includes('\n')) return false;
  if (SET_ONLY.test(c)) return true;
  const cd = /^cd\s+(['"]?)([^'"\s;&|]+)\1\s*;?$/.exec(c);
  return !!cd && cd[2]!.replace(/\/+$/, '') === workdir;
}

/** The commands without their leading preamble (only leading: a later `cd /app` is part of the work). */
export function withoutPreamble(commands: readonly string[], workdir = '/app'): string[] {
  let k = 0;
  while (k < commands.length && isPreambleCommand(commands[k]!, workdir)) k++;
  return commands.slice(k);
}
