/**
 * The host key check of an `ssh://` engine host, as OpenSSH makes it: the key the host offers must be in a
 * known_hosts file (the user's ~/.ssh/known_hosts, or the host's own `--known-hosts FILE`) under the host's
 * name, `HOST` on port 22 and `[HOST]:PORT` on another. Without it, ssh2 takes any key, and whoever sits
 * between the lab and the host could play the engine and receive every task and checkpoint sent there.
 * Plain and hashed (`|1|salt|hash`, HashKnownHosts) names, comma lists, `*`/`?` wildcards and `!` negation
 * are read; `@revoked` keys are refused; `@cert-authority` lines are skipped (host certificates are not taken).
 * Keys are compared as bytes; ssh2's own key parser reads them, no crypto of ours but the name hash.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
// ssh2 is the client dockerode's ssh transport (docker-modem) connects with: the same parser reads the keys.
// A default import: ssh2 is CommonJS, and Node's ESM loader finds no named `utils` export in it.
import ssh2 from 'ssh2';
import { DEFAULT_SSH_PORT } from './host-url';

const { utils } = ssh2;

/** The user's known_hosts, read when a host names no file of its own (HOME decides, as for ssh). */
export function defaultKnownHostsFile(): string {
  return join(homedir(), '.ssh', 'known_hosts');
}

export interface KnownHostLine {
  /** 1-based, for messages. */
  line: number;
  marker: '@revoked' | '@cert-authority' | null;
  patterns: string;
  keyType: string;
  key: Buffer;
}

/** The lines of a known_hosts text that hold a readable key; comments, blanks and broken lines are passed over (as ssh does). */
export function parseKnownHosts(text: string): KnownHostLine[] {
  const out: KnownHostLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const fields = raw.trim().split(/\s+/);
    if (!fields[0] || fields[0].startsWith('#')) return;
    const marker = fields[0] === '@revoked' || fields[0] === '@cert-authority' ? fields[0] : null;
    const [patterns, keyType, base64] = marker ? fields.slice(1) : fields;
    if (!patterns || !keyType || !base64) return;
    const key = Buffer.from(base64, 'base64');
    const parsed = utils.parseKey(key);
    if (parsed instanceof Error || parsed.type !== keyType) return;
    out.push({ line: i + 1, marker, patterns, keyType, key });
  });
  return out;
}

/** How known_hosts names a host: `HOST` on port 22, `[HOST]:PORT` on any other. */
export function knownHostName(host: string, port: number): string {
  return port === DEFAULT_SSH_PORT ? host : `[${host}]:${port}`;
}

/** Whether a line's host field (comma list, hashed names, wildcards, `!` negation) names `name`. */
export function patternsMatch(patterns: string, name: string): boolean {
  if (patterns.startsWith('|1|')) return hashedMatch(patterns, name);
  let matched = false;
  for (const p of patterns.split(',')) {
    const negated = p.startsWith('!');
    if (!globMatch(negated ? p.slice(1) : p, name)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

/** `|1|SALT|HASH`: HASH = HMAC-SHA1(key SALT, the name), both base64 (OpenSSH's HashKnownHosts). */
function hashedMatch(field: string, name: string): boolean {
  const [, , salt, hash] = field.split('|');
  if (!salt || !hash) return false;
  const want = Buffer.from(hash, 'base64');
  const got = createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest();
  return want.length === got.length && timingSafeEqual(want, got);
}

function globMatch(pattern: string, name: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 'i').test(name);
}

/** OpenSSH's fingerprint of a key: `SHA256:` and the base64 of its SHA-256, unpadded. */
export function fingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** The type name a raw key states (its first field), e.g. ssh-ed25519. */
export function keyTypeOf(key: Buffer): string {
  const parsed = utils.parseKey(key);
  return parsed instanceof Error ? 'unknown-type' : parsed.type;
}

export type HostKeyVerdict = { ok: true } | { ok: false; message: string };

/** Read a known_hosts file; a missing one holds no keys (the message then says it is missing). */
function readKnownHosts(file: string): { lines: KnownHostLine[]; missing: boolean } {
  try {
    return { lines: parseKnownHosts(readFileSync(file, 'utf8')), missing: false };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], missing: true };
    throw new Error(
      `known_hosts '${file}': cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      { cause: e },
    );
  }
}

/** The key types `file` knows for host:port (to ask the host for one of those first, as ssh does). */
export function knownKeyTypes(file: string, host: string, port: number): string[] {
  let lines: KnownHostLine[];
  try {
    lines = readKnownHosts(file).lines;
  } catch {
    return []; // the check itself reports the unreadable file
  }
  const name = knownHostName(host, port);
  return [...new Set(lines.filter((l) => !l.marker && patternsMatch(l.patterns, name)).map((l) => l.keyType))];
}

/** Is `key` (as the host offered it) the key `file` holds for host:port? If not, the message says why and what to do. */
export function checkHostKey(file: string, host: string, port: number, key: Buffer): HostKeyVerdict {
  const name = knownHostName(host, port);
  const offered = `${keyTypeOf(key)} key ${fingerprint(key)}`;
  let known: { lines: KnownHostLine[]; missing: boolean };
  try {
    known = readKnownHosts(file);
  } catch (e) {
    return { ok: false, message: `ssh host key of ${name} not checked: ${(e as Error).message}` };
  }
  const forHost = known.lines.filter((l) => patternsMatch(l.patterns, name));
  const revoked = forHost.find((l) => l.marker === '@revoked' && l.key.equals(key));
  if (revoked)
    return {
      ok: false,
      message: `ssh host key of ${name} refused: its ${offered} is marked @revoked in ${file} (line ${revoked.line})`,
    };
  const keys = forHost.filter((l) => !l.marker);
  if (keys.some((l) => l.key.equals(key))) return { ok: true };
  const keyscan = `ssh-keyscan${port === DEFAULT_SSH_PORT ? '' : ` -p ${port}`} ${host} >> ${file}`;
  if (!keys.length)
    return {
      ok: false,
      message:
        `ssh host key of ${name} is not known: it offered its ${offered}, which is not in ${file}${known.missing ? ' (no such file)' : ''}. ` +
        `If that is the host's key (on the host, \`ssh-keygen -lf\` of /etc/ssh/ssh_host_*_key.pub shows it), trust it with \`${keyscan}\``,
    };
  const held = keys.map((l) => `line ${l.line}: ${l.keyType} ${fingerprint(l.key)}`).join('; ');
  return {
    ok: false,
    message:
      `ssh host key of ${name} does NOT match ${file} (${held}): it offered its ${offered}. ` +
      `Someone may be impersonating the host, or its key changed. Only if the change is known: \`ssh-keygen -R '${name}' -f ${file}\`, then \`${keyscan}\``,
  };
}

/** ssh2's host key algorithms, in its own order; the ones a known type signs with go first. */
const HOST_KEY_ALGORITHMS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
] as const;
export type HostKeyAlgorithm = (typeof HOST_KEY_ALGORITHMS)[number];

/**
 * The order to ask for host key algorithms in: those of the key types known for the host first, so a host
 * with several keys shows the one on file (ssh does the same) rather than failing on one of another type.
 */
export function hostKeyAlgorithms(knownTypes: string[]): HostKeyAlgorithm[] {
  const signsWith = (a: HostKeyAlgorithm, type: string) => a === type || (type === 'ssh-rsa' && a.startsWith('rsa-'));
  const first = HOST_KEY_ALGORITHMS.filter((a) => knownTypes.some((t) => signsWith(a, t)));
  return [...first, ...HOST_KEY_ALGORITHMS.filter((a) => !first.includes(a))];
}

/**
 * One host's check, kept by its client: the verifier ssh2 calls on every connection, and the last refusal's
 * message (ssh2 itself only says "Host denied (verification failed)", which names neither key nor file).
 */
export class HostKeyCheck {
  refusal: string | null = null;

  constructor(
    readonly file: string,
    readonly host: string,
    readonly port: number,
  ) {}

  readonly verify = (key: Buffer): boolean => {
    const verdict = checkHostKey(this.file, this.host, this.port, key);
    this.refusal = verdict.ok ? null : verdict.message;
    return verdict.ok;
  };

  algorithms(): HostKeyAlgorithm[] {
    return hostKeyAlgorithms(knownKeyTypes(this.file, this.host, this.port));
  }
}
