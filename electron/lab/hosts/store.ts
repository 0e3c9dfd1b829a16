/**
 * Engine hosts as the lab keeps them: the `hosts` key of the settings file (a list of name, URL, slots,
 * TLS folder, known_hosts file, enabled), and the lab's install id (`installId`), the label that tells this install's
 * containers from those of another lab using the same engine. Every input is checked here, and a bad
 * one names its field and value.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { z } from 'zod';
import { HostUrlError, parseHostUrl, readTlsDir } from '../../../native/sandbox/container/api/host-url';
import type { HostConfig, HostFiles } from '../../../native/sandbox/container/api/client';
import { LabError } from '../../ipc/common/errors';
import { readSettings, writeSetting } from '../settings/settings-file';

export const HOSTS_KEY = 'hosts';
export const INSTALL_ID_KEY = 'installId';
export const MAX_SLOTS = 256;
export const DEFAULT_SLOTS = 2;
const NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;

const HostEntry = z.object({
  name: z.string().regex(NAME),
  url: z.string().min(1),
  slots: z.number().int().min(1).max(MAX_SLOTS),
  tlsDir: z.string().optional(),
  knownHosts: z.string().optional(),
  enabled: z.boolean().optional(),
  files: z.enum(['auto', 'copy']).optional(),
});

export function listHosts(dataDir: string): HostConfig[] {
  const raw = readSettings(dataDir)[HOSTS_KEY] ?? [];
  const parsed = z.array(HostEntry).safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new LabError(
      'CONFLICT',
      `settings.json: hosts.${i?.path.join('.')}: ${i?.message}; fix it or remove the host with \`t1lab hosts remove\``,
    );
  }
  return parsed.data;
}

export function checkHostName(name: string): string {
  if (!NAME.test(name))
    throw new LabError(
      'INVALID_PARAMS',
      `NAME '${name}': expected 1-32 lower-case letters, digits, - or _, starting with a letter or digit`,
    );
  return name;
}

export function parseSlots(text: string | number): number {
  const n = typeof text === 'number' ? text : Number(text);
  if (!Number.isInteger(n) || n < 1 || n > MAX_SLOTS)
    throw new LabError('INVALID_PARAMS', `--slots '${text}': expected a whole number from 1 to ${MAX_SLOTS}`);
  return n;
}

/** Check a new host's fields (the URL's scheme and loopback rule, the TLS folder's files) and store it. */
export function addHost(
  dataDir: string,
  input: { name: string; url: string; slots?: number; tlsDir?: string; knownHosts?: string; files?: HostFiles },
): HostConfig {
  const name = checkHostName(input.name);
  const tlsDir = input.tlsDir ? resolve(input.tlsDir) : undefined;
  // Kept absolute: the lab may run from another folder. It need not exist yet (ssh-keyscan fills it after).
  const knownHosts = input.knownHosts ? resolve(input.knownHosts) : undefined;
  try {
    const parsed = parseHostUrl(input.url, tlsDir);
    if (tlsDir) readTlsDir(tlsDir);
    if (knownHosts && parsed.transport !== 'ssh')
      throw new HostUrlError(
        `--known-hosts is for ssh:// hosts (their host key is checked against it); '${input.url}' is not ssh://`,
      );
  } catch (e) {
    if (e instanceof HostUrlError) throw new LabError('INVALID_PARAMS', e.message);
    throw e;
  }
  const hosts = listHosts(dataDir);
  if (hosts.some((h) => h.name === name))
    throw new LabError(
      'INVALID_PARAMS',
      `NAME '${name}': a host of that name exists; \`t1lab hosts remove ${name}\` first`,
    );
  const entry: HostConfig = {
    name,
    url: input.url,
    slots: parseSlots(input.slots ?? DEFAULT_SLOTS),
    ...(tlsDir ? { tlsDir } : {}),
    ...(knownHosts ? { knownHosts } : {}),
    enabled: true,
    ...(input.files === 'copy' ? { files: 'copy' as const } : {}),
  };
  writeSetting(dataDir, HOSTS_KEY, [...hosts, entry]);
  return entry;
}

export function removeHost(dataDir: string, name: string): HostConfig {
  const hosts = listHosts(dataDir);
  const found = hosts.find((h) => h.name === name);
  if (!found)
    throw new LabError(
      'NOT_FOUND',
      `no host named '${name}' (${hosts.length ? `hosts: ${hosts.map((h) => h.name).join(', ')}` : 'none is configured'})`,
    );
  writeSetting(
    dataDir,
    HOSTS_KEY,
    hosts.filter((h) => h.name !== name),
  );
  return found;
}

/** The hosts named in `--hosts a,b` (each must exist), or every enabled host when `names` is empty. */
export function selectHosts(dataDir: string, names: string[]): HostConfig[] {
  const hosts = listHosts(dataDir);
  if (!names.length) return hosts.filter((h) => h.enabled !== false);
  return names.map((n) => {
    const h = hosts.find((x) => x.name === n);
    if (!h)
      throw new LabError(
        'INVALID_PARAMS',
        `--hosts: no host named '${n}' (${hosts.length ? `hosts: ${hosts.map((x) => x.name).join(', ')}` : 'add one with `t1lab hosts add NAME URL`'})`,
      );
    return h;
  });
}

/** This lab install's id (made once, kept in the settings file): the label of everything it creates on engines. */
export function installId(dataDir: string): string {
  const have = readSettings(dataDir)[INSTALL_ID_KEY];
  if (typeof have === 'string' && /^[a-f0-9]{16}$/.test(have)) return have;
  const id = randomBytes(8).toString('hex');
  writeSetting(dataDir, INSTALL_ID_KEY, id);
  return id;
}
