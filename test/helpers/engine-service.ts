/**
 * What the tests' own engine services (a podman API service, a dockerd) share: waiting until the socket
 * answers `/_ping`, stopping the process (SIGTERM, then SIGKILL after a grace), and lazily unmounting what
 * the engine left mounted under its folder (an overlay mount keeps the folder from being removed).
 */
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';

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

/** Resolves once the engine answers on `socket`; kills it and throws with its stderr tail when it exits or `timeoutMs` passes. */
export async function waitForEngine(
  child: ChildProcess,
  socket: string,
  o: { what: string; timeoutMs: number; pollMs: number },
): Promise<void> {
  let log = '';
  child.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const deadline = Date.now() + o.timeoutMs;
  while (!(await ping(socket))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${o.what} did not answer on ${socket}:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, o.pollMs));
  }
}

/** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
export async function stopEngine(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, graceMs))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** Lazily unmount every mount under `dir`, deepest first. */
export function unmountUnder(dir: string): void {
  const mounts = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1] ?? '')
    .filter((m) => m.startsWith(`${dir}/`));
  for (const m of mounts.sort().reverse()) spawnSync('umount', ['-l', m], { stdio: 'ignore' });
}
