/**
 * For e2e tests: the built app served by `t1lab serve` (a real process, its own data dir) and Debian's
 * Chromium driven by playwright-core. Each returns a way to stop it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { REPO_ROOT } from './cli';
import { makeTempDir } from './tmp';

export const CHROMIUM = process.env.T1LAB_CHROMIUM ?? '/usr/bin/chromium';

export interface ServedApp {
  url: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** `t1lab serve` from the build (run `npx tsx build/build.ts` first); resolves with the URL it prints. */
export async function serveBuiltApp(env: NodeJS.ProcessEnv = {}): Promise<ServedApp> {
  if (!existsSync(join(REPO_ROOT, 'dist', 'node', 'cli.js'))) throw new Error('the app is not built: run `npx tsx build/build.ts`');
  const data = makeTempDir('t1lab-e2e-data-');
  const child: ChildProcess = spawn(process.execPath, [join(REPO_ROOT, 'bin', 't1lab.js'), 'serve'], {
    cwd: REPO_ROOT,
    env: { ...process.env, T1LAB_HOME: data.path, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`t1lab serve printed no URL in 30 s; stderr:\n${stderr}`)), 30_000);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('http'));
      if (line) {
        clearTimeout(timer);
        resolve(line.trim());
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`t1lab serve exited with ${code}; stderr:\n${stderr}`));
    });
  });
  return {
    url,
    dataDir: data.path,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      data.remove();
    },
  };
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}
