/**
 * Does the network a test script needs answer from here? `tests/test.sh` runs as written only when it
 * does: Harbor's scripts fetch uv (astral.sh) and pytest (PyPI) first, which a machine with network but
 * no route to those hosts cannot do. A TCP connect to port 443 of each host, with a short timeout,
 * cached per process.
 */
import { connect } from 'node:net';

const CONNECT_TIMEOUT_MS = 3_000;
const cache = new Map<string, Promise<boolean>>();

export function hostReachable(host: string, port = 443): Promise<boolean> {
  const key = `${host}:${port}`;
  let p = cache.get(key);
  if (!p) {
    p = new Promise<boolean>((resolve) => {
      const socket = connect({ host, port, timeout: CONNECT_TIMEOUT_MS });
      const done = (ok: boolean) => {
        socket.destroy();
        resolve(ok);
      };
      socket.once('connect', () => done(true));
      socket.once('timeout', () => done(false));
      socket.once('error', () => done(false));
    });
    cache.set(key, p);
  }
  return p;
}

/** Hosts a script reaches: the URLs it names, PyPI when it installs with pip or uv. */
export function hostsNeeded(script: string): string[] {
  const hosts = new Set<string>();
  for (const m of script.matchAll(/https?:\/\/([A-Za-z0-9.-]+)/g)) hosts.add(m[1] as string);
  if (/\b(uvx?|pip3?)\b/.test(script)) hosts.add('pypi.org');
  return [...hosts];
}

/** The first host a script needs that does not answer, or null when all do. */
export async function unreachableHost(script: string): Promise<string | null> {
  for (const host of hostsNeeded(script)) if (!(await hostReachable(host))) return host;
  return null;
}
