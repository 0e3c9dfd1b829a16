/** Run a short command and capture its output; never throws (a missing program is a result, not an error). */
import { execFile } from 'node:child_process';

export interface ExecResult {
  ok: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the program could not be started (e.g. ENOENT). */
  spawnError: string | null;
}

export function execQuiet(
  file: string,
  args: string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<ExecResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { timeout: options.timeoutMs ?? 10_000, env: options.env, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const err = error as (NodeJS.ErrnoException & { code?: number | string }) | null;
        const spawnError = err && typeof err.code === 'string' ? `${err.code}: ${err.message}` : null;
        resolve({
          ok: !err,
          code: err ? (typeof err.code === 'number' ? err.code : null) : 0,
          stdout: String(stdout),
          stderr: String(stderr),
          spawnError,
        });
      },
    );
  });
}
