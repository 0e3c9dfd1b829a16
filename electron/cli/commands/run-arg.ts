/**
 * The run a `t1lab runs` command names: an id under the lab data folder, or the path of a run folder (a run
 * made with `t1lab eval --out DIR` lives outside it).
 */
import { sep } from 'node:path';
import { locateRun, runAtPath, type LocatedRun } from '../../lab/runs/meta';

export const RUN_ARG_HELP =
  'run id (a folder under runs/ or training/ of the data folder) or a run folder path (with a /, e.g. ./out/run or /data/run)';

/** With a slash (or `.`/`..`) it is a path; a bare name is always an id, so a folder in the current directory never shadows a run. */
export function runArg(dataDir: string, arg: string): LocatedRun {
  if (arg.includes('/') || arg.includes(sep) || arg === '.' || arg === '..') return runAtPath(arg);
  return { runId: arg, ...locateRun(dataDir, arg) };
}
