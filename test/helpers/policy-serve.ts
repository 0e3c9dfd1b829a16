/** `t1lab policy serve` as a separate process (the real CLI, from source), for tests and benches. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './cli';

const CLI = fileURLToPath(new URL('../../electron/cli/t1lab.ts', import.meta.url));

export interface ServeLine {
  url: string;
  model: string;
  policy: string;
  checkpoint: string;
  contextWindow: number;
  maxConcurrency: number;
  provider: string;
}

export interface ServeProcess extends ServeLine {
  child: ChildProcess;
  stderr: () => string;
  /** SIGTERM, then the exit code (SIGKILL after `ms`). */
  stop(ms?: number): Promise<number | null>;
}

export function startPolicyServe(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'policy', 'serve', ...args, '--json'], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (ms = 15_000): Promise<number | null> => {
    if (child.exitCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(1000);
      reject(new Error(`policy serve did not print its URL in time:\n${stderr}`));
    }, options.timeoutMs ?? 120_000);
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      const nl = stdout.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      resolve({ ...(JSON.parse(stdout.slice(0, nl)) as ServeLine), child, stderr: () => stderr, stop });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`policy serve exited (${code}) before printing its URL:\n${stderr}`));
    });
  });
}
