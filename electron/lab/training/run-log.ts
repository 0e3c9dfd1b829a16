/**
 * A training run's log file (`train.log` in the run folder): every message the trainer logs, one
 * timestamped line each, appended as it is said, so that the Training page shows a run's log whoever started
 * it and after the process is gone. Messages said before the run folder exists are kept and written first.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const RUN_LOG_FILE = 'train.log';

export interface RunLog {
  log(message: string): void;
  /** The run folder is known: write what was said so far, then every message as it comes. */
  attach(runDir: string): void;
}

export function runLog(forward: ((message: string) => void) | undefined): RunLog {
  let file: string | null = null;
  let pending: string[] = [];
  const write = (lines: string[]) => {
    try {
      appendFileSync(file!, lines.join(''));
    } catch {
      // a full or read-only disk must not stop training: the message still goes to the console
    }
  };
  return {
    log(message) {
      forward?.(message);
      const line = `${new Date().toISOString()} ${message.replace(/\n+$/, '')}\n`;
      if (file) write([line]);
      else pending.push(line);
    },
    attach(runDir) {
      file = join(runDir, RUN_LOG_FILE);
      if (pending.length) write(pending);
      pending = [];
    },
  };
}

/** The last `max` lines of a run's log and how many lines it has (0 and [] when there is none). */
export function readRunLogTail(runDir: string, max: number): { lines: string[]; total: number } {
  const file = join(runDir, RUN_LOG_FILE);
  if (!existsSync(file)) return { lines: [], total: 0 };
  // A log holds a line per warning, resume or evaluation (kilobytes): read whole.
  const all = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  return { lines: all.slice(-max), total: all.length };
}
