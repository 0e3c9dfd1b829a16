/**
 * A dockerd of the test's own: its own data root, exec root and unix socket, no iptables and no bridge
 * (containers run with network none, as the lab's do unless a task asks), stopped and cleaned after.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { missingProgram, optionalSkip } from './skip';

export function dockerdSkip(): string | null {
  if (process.getuid?.() !== 0) return optionalSkip('dockerd is tested as root');
  return missingProgram('dockerd', 'docker.io');
}

export interface Dockerd {
  dir: string;
  socket: string;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

function ping(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, path: '/_ping', timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => (req.destroy(), resolve(false)));
    req.end();
  });
}

export async function startDockerd(dir: string): Promise<Dockerd> {
  mkdirSync(dir, { recursive: true });
  const socket = join(dir, 'docker.sock');
  const args = ['--data-root', join(dir, 'data'), '--exec-root', join(dir, 'exec'), '--pidfile', join(dir, 'docker.pid'), '-H', `unix://${socket}`, '--iptables=false', '--ip6tables=false', '--bridge=none'];
  const child = spawn('dockerd', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const deadline = Date.now() + 60_000;
  while (!(await ping(socket))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`dockerd did not answer on ${socket}:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    dir,
    socket,
    url: `unix://${socket}`,
    child,
    async stop() {
      const docker = (a: string[]) => spawnSync('docker', ['-H', `unix://${socket}`, ...a], { encoding: 'utf8', timeout: 60_000 });
      const ids = docker(['ps', '-aq']).stdout.split('\n').filter(Boolean);
      if (ids.length) docker(['rm', '-f', ...ids]);
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      const mounts = readFileSync('/proc/mounts', 'utf8').split('\n').map((l) => l.split(' ')[1] ?? '').filter((m) => m.startsWith(`${dir}/`));
      for (const m of mounts.sort().reverse()) spawnSync('umount', ['-l', m], { stdio: 'ignore' });
    },
  };
}
