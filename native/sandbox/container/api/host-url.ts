/**
 * Where an engine host listens, as the lab accepts it: `unix:///path/to/engine.sock` (this machine),
 * `tcp://HOST:PORT` with TLS client certificates (a folder holding ca.pem, cert.pem, key.pem, as
 * `docker --tlsverify` takes them), or `ssh://[USER@]HOST[:PORT]` (the engine's socket forwarded over ssh).
 * Plain `tcp://` is refused unless the host is loopback: whoever reaches an engine's API is root there.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

export type HostTransport = 'unix' | 'tcp' | 'tls' | 'ssh';

export interface ParsedHostUrl {
  transport: HostTransport;
  /** unix: the socket's path. */
  socketPath?: string;
  host?: string;
  port?: number;
  /** ssh: the user to log in as (else ssh's default: this user). */
  username?: string;
}

export class HostUrlError extends Error {}

/** The files a TLS folder must hold (docker's names). */
export const TLS_FILES = { ca: 'ca.pem', cert: 'cert.pem', key: 'key.pem' } as const;
export const DEFAULT_TLS_PORT = 2376;
export const DEFAULT_SSH_PORT = 22;

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** Parse and check a host URL; `tlsDir` is the `--tls-dir` given with it (tcp only). Errors name the value and the fix. */
export function parseHostUrl(url: string, tlsDir?: string): ParsedHostUrl {
  const scheme = /^([a-z]+):\/\//.exec(url)?.[1];
  if (scheme === 'unix') {
    const path = url.slice('unix://'.length);
    if (!path.startsWith('/'))
      throw new HostUrlError(`URL '${url}': a unix socket needs an absolute path (unix:///run/podman/podman.sock)`);
    if (tlsDir) throw new HostUrlError(`--tls-dir is for tcp:// hosts; '${url}' is a unix socket`);
    return { transport: 'unix', socketPath: path };
  }
  if (scheme !== 'tcp' && scheme !== 'ssh') {
    throw new HostUrlError(
      `URL '${url}': expected unix:///PATH, tcp://HOST:PORT (with --tls-dir) or ssh://[USER@]HOST[:PORT]`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new HostUrlError(`URL '${url}': not a valid URL`);
  }
  if (!parsed.hostname) throw new HostUrlError(`URL '${url}': no host name`);
  if ((parsed.pathname && parsed.pathname !== '/') || parsed.search)
    throw new HostUrlError(`URL '${url}': no path or query is taken (the engine's own socket is used)`);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (scheme === 'ssh') {
    if (tlsDir) throw new HostUrlError(`--tls-dir is for tcp:// hosts; '${url}' goes over ssh (its keys are ssh's)`);
    if (parsed.password) throw new HostUrlError(`URL '${url}': no password in the URL; use an ssh key (ssh-agent)`);
    return {
      transport: 'ssh',
      host,
      port: parsed.port ? Number(parsed.port) : DEFAULT_SSH_PORT,
      ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    };
  }
  if (parsed.username) throw new HostUrlError(`URL '${url}': tcp:// takes no user`);
  if (!parsed.port)
    throw new HostUrlError(`URL '${url}': tcp:// needs a port (dockerd with TLS listens on ${DEFAULT_TLS_PORT})`);
  const port = Number(parsed.port);
  if (tlsDir) return { transport: 'tls', host, port };
  if (!isLoopback(host)) {
    throw new HostUrlError(
      `URL '${url}': plain tcp:// to a host other than this machine is refused (whoever reaches an engine's API is root there); give --tls-dir DIR with ca.pem, cert.pem and key.pem, or use ssh://`,
    );
  }
  return { transport: 'tcp', host, port };
}

export interface TlsFiles {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** Read ca.pem, cert.pem and key.pem from `dir`; a missing one is named. */
export function readTlsDir(dir: string): TlsFiles {
  const read = (name: string) => {
    try {
      return readFileSync(join(dir, name));
    } catch (e) {
      throw new HostUrlError(
        `--tls-dir '${dir}': cannot read ${name} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); the folder must hold ${Object.values(TLS_FILES).join(', ')}`,
      );
    }
  };
  return { ca: read(TLS_FILES.ca), cert: read(TLS_FILES.cert), key: read(TLS_FILES.key) };
}
