/**
 * Files the sandbox needs that the host must not provide as-is, written once per process into a private
 * temp directory (0700) and removed when the process exits:
 *   - the sandbox's /etc: a minimal passwd/group (the host's list its users and their home directories),
 *     hosts and hostname, plus copies of the allowlisted host files and of the small allowlisted host
 *     directories (what every user of the host may read); the big ones (ssl, alternatives: hundreds of
 *     links, too slow to copy on a sandbox's start) are bound on top. Few binds keep sandboxes quick to
 *     start: each costs bwrap a mount, a remount and a read of the mount table (about 0.3 ms here).
 *   - the seccomp program;
 *   - rc files of the lab's interactive shells (under /etc/t1lab, so no mount of their own is needed).
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { makeOwnedTempDirSync } from '../util/temp-dirs';
import { seccompProgram } from './seccomp';
import { shellRcText } from './shell-start';

export const SANDBOX_HOSTNAME = 'sandbox';

/**
 * /etc entries shared read-only with the sandbox: what programs need to run, nothing that identifies users or
 * holds secrets. Of /etc/ssl only the public certificates and OpenSSL's configuration: never ssl/private
 * (key material, readable to a lab running as root).
 */
export const ETC_ALLOWLIST = [
  'alternatives',
  'bash.bashrc',
  'ca-certificates',
  'ca-certificates.conf',
  'debian_version',
  'gai.conf',
  'host.conf',
  'inputrc',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'locale.alias',
  'localtime',
  'login.defs',
  'magic',
  'magic.mime',
  'mime.types',
  'nanorc',
  'networks',
  'nsswitch.conf',
  'os-release',
  'perl',
  'profile',
  'protocols',
  'python3',
  'rpc',
  'services',
  'shells',
  'skel',
  'ssl/certs',
  'ssl/openssl.cnf',
  'terminfo',
  'timezone',
  'vim',
  'xdg',
];

const GENERATED: Record<string, string> = {
  passwd: 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n',
  group: 'root:x:0:\nnogroup:x:65534:\n',
  hosts: `127.0.0.1\tlocalhost ${SANDBOX_HOSTNAME}\n::1\tlocalhost ip6-localhost ip6-loopback\n`,
  hostname: `${SANDBOX_HOSTNAME}\n`,
  // Replaced by a bind of the host's resolver configuration when the sandbox has network.
  'resolv.conf': '',
};

export interface RuntimeFiles {
  dir: string;
  /** Host directory bound read-only as the sandbox's /etc. */
  etcDir: string;
  /** Host /etc subdirectories bound on top of it (read-only): those too big to copy (or that failed to). */
  etcSubdirs: string[];
  /** The seccomp program file, or null where no filter exists for this architecture. */
  seccomp: string | null;
}

/** A host /etc directory with at most this many entries (all levels) is copied; a bigger one is bound. */
const COPY_MAX_ENTRIES = 64;

let files: RuntimeFiles | null = null;

export function runtimeFiles(): RuntimeFiles {
  if (files) return files;
  const dir = makeOwnedTempDirSync('sandbox');
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const etcDir = join(dir, 'etc');
  mkdirSync(etcDir, { mode: 0o755 });
  const etcSubdirs: string[] = [];
  for (const name of ETC_ALLOWLIST) {
    const host = join('/etc', name);
    let st;
    try {
      st = lstatSync(host);
    } catch {
      continue; // not on this host
    }
    try {
      mkdirSync(dirname(join(etcDir, name)), { recursive: true, mode: 0o755 });
      if (st.isSymbolicLink()) symlinkSync(readlinkSync(host), join(etcDir, name));
      else if (st.isDirectory()) {
        // Small directories, and any holding an entry not every user may read, are copied without the private
        // entries; only big, wholly public ones are bound (and one that cannot be copied is left out, never bound).
        const copy = entriesUpTo(host, COPY_MAX_ENTRIES) <= COPY_MAX_ENTRIES || holdsPrivateEntries(host);
        if (copy) copyShareableTree(host, join(etcDir, name));
        else {
          mkdirSync(join(etcDir, name));
          etcSubdirs.push(host);
        }
      } else if (st.isFile() && (st.mode & 0o004) !== 0) copyFileSync(host, join(etcDir, name));
    } catch {
      // unreadable on this host: leave it out
    }
  }
  for (const [name, text] of Object.entries(GENERATED)) writeFileSync(join(etcDir, name), text, { mode: 0o644 });
  const program = seccompProgram();
  let seccomp: string | null = null;
  if (program) {
    seccomp = join(dir, 'seccomp.bpf');
    writeFileSync(seccomp, program, { mode: 0o600 });
  }
  files = { dir, etcDir, etcSubdirs, seccomp };
  return files;
}

/** Entries under `dir` (all levels), counting stops past `max`. */
function entriesUpTo(dir: string, max: number): number {
  let count = 0;
  const stack = [dir];
  while (stack.length && count <= max) {
    const current = stack.pop() as string;
    const entries = readdirSync(current, { withFileTypes: true });
    count += entries.length;
    for (const e of entries) if (e.isDirectory()) stack.push(join(current, e.name));
  }
  return count;
}

/** Whether anything under `dir` (all levels) is a file or directory that not every user may read. */
function holdsPrivateEntries(dir: string): boolean {
  const stack = [dir];
  while (stack.length) {
    const current = stack.pop() as string;
    for (const e of readdirSync(current, { withFileTypes: true })) {
      if (e.isSymbolicLink()) continue;
      const mode = lstatSync(join(current, e.name)).mode;
      if (e.isDirectory()) {
        if ((mode & 0o005) !== 0o005) return true;
        stack.push(join(current, e.name));
      } else if ((mode & 0o004) === 0) return true;
    }
  }
  return false;
}

/**
 * Copy a host directory with the files and directories every user may read (symlinks as they are);
 * anything private (e.g. a key only root may read, when the lab runs as root) is left out. False if the
 * copy failed (it is removed: the caller binds the directory instead).
 */
function copyShareableTree(from: string, to: string): boolean {
  try {
    const st = lstatSync(from);
    mkdirSync(to, { mode: st.mode & 0o7777 });
    for (const e of readdirSync(from, { withFileTypes: true })) {
      const src = join(from, e.name);
      const dst = join(to, e.name);
      if (e.isSymbolicLink()) symlinkSync(readlinkSync(src), dst);
      else if (e.isDirectory()) {
        if ((lstatSync(src).mode & 0o005) === 0o005 && !copyShareableTree(src, dst))
          throw new Error(`could not copy ${src}`);
      } else if (e.isFile() && (lstatSync(src).mode & 0o004) !== 0) copyFileSync(src, dst);
    }
    return true;
  } catch {
    rmSync(to, { recursive: true, force: true });
    return false;
  }
}

/** Shell rc files written, by name. */
const shellRcsWritten = new Set<string>();

/**
 * The sandbox path of an rc file for the lab's interactive shell: the sandbox's own first lines
 * (`shellRcText`), then `rc`. Written once per distinct text into the generated /etc (read-only inside).
 */
export function shellRcFile(rc: string): string {
  const name = `shell-${createHash('sha256').update(rc).digest('hex').slice(0, 16)}.rc`;
  if (!shellRcsWritten.has(name)) {
    const { etcDir } = runtimeFiles();
    mkdirSync(join(etcDir, 't1lab'), { recursive: true, mode: 0o755 });
    writeFileSync(join(etcDir, 't1lab', name), shellRcText(rc), { mode: 0o644 });
    shellRcsWritten.add(name);
  }
  return `/etc/t1lab/${name}`;
}
