/**
 * Start a real `t1lab serve` process and wait for the one line it prints (the URL). Built CLI by default
 * (what users run); `fromSource` runs the TypeScript through tsx instead.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from './cli';

export interface ServeProcess {
  url: string;
  origin: string;
  token: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<void>;
}

export function startServe(
  options: { args?: string[]; env?: NodeJS.ProcessEnv; fromSource?: boolean; command?: string[] } = {},
): Promise<ServeProcess> {
  const bin = fileURLToPath(new URL('../../bin/t1lab.js', import.meta.url));
  const source = fileURLToPath(new URL('../../electron/cli/t1lab.ts', import.meta.url));
  const argv =
    options.command ??
    (options.fromSource
      ? ['--import', 'tsx', source, 'serve', ...(options.args ?? [])]
      : [bin, 'serve', ...(options.args ?? [])]);
  const child = spawn(process.execPath, argv, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`t1lab serve printed no URL in time.\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, 60_000);
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
      const match = /^(http:\/\/[^\s]+\/\?token=([^\s]+))\n/m.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      const url = match[1] as string;
      resolve({
        url,
        origin: new URL(url).origin,
        token: decodeURIComponent(match[2] as string),
        child,
        stderr: () => stderr,
        stop,
      });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(
        new Error(`t1lab serve exited with ${code} before printing its URL.\nstdout: ${stdout}\nstderr: ${stderr}`),
      );
    });
  });
}
