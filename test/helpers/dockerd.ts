/**
 * A dockerd of the test's own: its own data root, exec root and unix socket, no iptables and no bridge
 * (containers run with network none, as the lab's do unless a task asks), stopped and cleaned after.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { stopEngine, unmountUnder, waitForEngine } from './engine-service';
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

export async function startDockerd(dir: string): Promise<Dockerd> {
  mkdirSync(dir, { recursive: true });
  const socket = join(dir, 'docker.sock');
  const args = [
    '--data-root',
    join(dir, 'data'),
    '--exec-root',
    join(dir, 'exec'),
    '--pidfile',
    join(dir, 'docker.pid'),
    '-H',
    `unix://${socket}`,
    '--iptables=false',
    '--ip6tables=false',
    '--bridge=none',
  ];
  const child = spawn('dockerd', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  await waitForEngine(child, socket, { what: 'dockerd', timeoutMs: 60_000, pollMs: 250 });
  return {
    dir,
    socket,
    url: `unix://${socket}`,
    child,
    async stop() {
      const docker = (a: string[]) =>
        spawnSync('docker', ['-H', `unix://${socket}`, ...a], { encoding: 'utf8', timeout: 60_000 });
      const ids = docker(['ps', '-aq']).stdout.split('\n').filter(Boolean);
      if (ids.length) docker(['rm', '-f', ...ids]);
      await stopEngine(child, 20_000);
      unmountUnder(dir);
    },
  };
}
