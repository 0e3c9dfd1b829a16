/**
 * Files the sandbox needs that the host must not provide as-is, written once per process into a private
 * temp directory (0700) and removed when the process exits:
 *   - the sandbox's /etc: a minimal passwd/group (the host's list its users and their home directories),
 *     hosts and hostname, plus copies of the allowlisted host files. The allowlisted host directories (ssl,
 *     alternatives, ...) are bound on top at first; a copy of them (what every user of the host may read)
 *     is made in the background, and sandboxes started once it is ready get one bind for the whole /etc.
 *     Each bind costs bwrap a mount, a remount and a read of the mount table (about 0.3 ms each here), and
 *     the copy (hundreds of symlinks) is too slow to make on the first sandbox's start. The copies are
 *     taken once per process: a host change to them (new CA certificates) reaches the next lab process.
 *   - the seccomp program;
 *   - rc files of the lab's interactive shells (under /etc/t1lab, so no mount of their own is needed).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cp, lstat, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seccompProgram } from './seccomp';
import { shellRcText } from './shell-start';

export const SANDBOX_HOSTNAME = 'sandbox';

/** /etc entries shared read-only with the sandbox: what programs need to run, nothing that identifies users or holds secrets. */
export const ETC_ALLOWLIST = [
  'alternatives', 'bash.bashrc', 'ca-certificates', 'ca-certificates.conf', 'debian_version', 'gai.conf', 'host.conf',
  'inputrc', 'ld.so.cache', 'ld.so.conf', 'ld.so.conf.d', 'locale.alias', 'localtime', 'login.defs', 'magic', 'magic.mime',
  'mime.types', 'nanorc', 'networks', 'nsswitch.conf', 'os-release', 'perl', 'profile', 'protocols', 'python3', 'rpc',
  'services', 'shells', 'skel', 'ssl', 'terminfo', 'timezone', 'vim', 'xdg',
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
  /** Host /etc subdirectories bound on top of it (read-only): all of them until the copy is ready, then those it could not copy. */
  etcSubdirs: string[];
  /** The seccomp program file, or null where no filter exists for this architecture. */
  seccomp: string | null;
}

let files: RuntimeFiles | null = null;
let etcCopied: Promise<void> = Promise.resolve();

/** The current files (cheap after the first call; `etcDir` changes once, when the copied /etc is ready). */
export function runtimeFiles(): RuntimeFiles {
  if (files) return files;
  const dir = mkdtempSync(join(tmpdir(), 't1lab-sandbox-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const etcDir = join(dir, 'etc');
  const dirs = writeEtc(etcDir);
  const program = seccompProgram();
  let seccomp: string | null = null;
  if (program) {
    seccomp = join(dir, 'seccomp.bpf');
    writeFileSync(seccomp, program, { mode: 0o600 });
  }
  files = { dir, etcDir, etcSubdirs: dirs.map((name) => join('/etc', name)), seccomp };
  etcCopied = copyEtc(dir, dirs);
  return files;
}

/** Resolves once the background copy of /etc has ended (ready or given up); for tests. */
export function etcCopyDone(): Promise<void> {
  runtimeFiles();
  return etcCopied;
}

/**
 * Write a sandbox /etc: the allowlisted host files and links, the generated files, an empty directory for
 * each allowlisted host directory (a mount point, or where its copy goes). Returns those directories' names.
 */
function writeEtc(etcDir: string): string[] {
  mkdirSync(etcDir, { mode: 0o755 });
  const dirs: string[] = [];
  for (const name of ETC_ALLOWLIST) {
    const host = join('/etc', name);
    let st;
    try {
      st = lstatSync(host);
    } catch {
      continue; // not on this host
    }
    try {
      if (st.isSymbolicLink()) symlinkSync(readlinkSync(host), join(etcDir, name));
      else if (st.isDirectory()) {
        mkdirSync(join(etcDir, name));
        dirs.push(name);
      } else if (st.isFile()) copyFileSync(host, join(etcDir, name));
    } catch {
      // unreadable on this host: leave it out
    }
  }
  for (const [name, text] of Object.entries(GENERATED)) writeFileSync(join(etcDir, name), text, { mode: 0o644 });
  return dirs;
}

/**
 * Build a second /etc with copies of the allowlisted directories (a directory that cannot be copied stays a
 * bind), then switch new sandboxes to it. Running sandboxes keep the first one (it is never changed).
 */
async function copyEtc(dir: string, dirs: string[]): Promise<void> {
  if (dirs.length === 0) return;
  const copied = join(dir, 'etc-copied');
  const staging = join(dir, 'etc-staging');
  try {
    await mkdir(staging, { mode: 0o755 });
    const binds: string[] = [];
    for (const name of dirs) if (!(await copyShareableTree(join('/etc', name), join(staging, name)))) binds.push(join('/etc', name));
    if (!files || files.dir !== dir) return;
    // The files and the shell rc files are written synchronously with the switch, so no start sees half of it.
    writeEtc(copied);
    for (const name of dirs) {
      if (binds.includes(join('/etc', name))) continue;
      rmSync(join(copied, name), { recursive: true });
      renameSync(join(staging, name), join(copied, name));
    }
    for (const rc of shellRcs.values()) writeShellRc(copied, rc);
    files = { ...files, etcDir: copied, etcSubdirs: binds };
  } catch {
    // keep the binds
  } finally {
    await rm(staging, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * Copy a host directory with the files and directories every user may read (symlinks as they are);
 * anything private (e.g. /etc/ssl/private when the lab runs as root) is left out. False if the copy failed.
 */
async function copyShareableTree(from: string, to: string): Promise<boolean> {
  try {
    await cp(from, to, {
      recursive: true,
      verbatimSymlinks: true,
      filter: async (src) => {
        const st = await lstat(src);
        if (st.isSymbolicLink()) return true;
        if (st.isDirectory()) return (st.mode & 0o005) === 0o005;
        return st.isFile() && (st.mode & 0o004) !== 0;
      },
    });
    return true;
  } catch {
    await rm(to, { recursive: true, force: true }).catch(() => {});
    return false;
  }
}

/** rc texts by their file name under /etc/t1lab, and the files written (etc dir + name). */
const shellRcs = new Map<string, string>();
const shellRcsWritten = new Set<string>();

/**
 * The sandbox path of an rc file for the lab's interactive shell: the sandbox's own first lines
 * (`shellRcText`), then `rc`. Written once per distinct text into `into.etcDir` (read-only inside); pass
 * the same files the sandbox is started with.
 */
export function shellRcFile(rc: string, into: RuntimeFiles): string {
  const name = writeShellRc(into.etcDir, rc);
  shellRcs.set(name, rc);
  return `/etc/t1lab/${name}`;
}

function writeShellRc(etcDir: string, rc: string): string {
  const name = `shell-${createHash('sha256').update(rc).digest('hex').slice(0, 16)}.rc`;
  const file = join(etcDir, 't1lab', name);
  if (!shellRcsWritten.has(file)) {
    mkdirSync(join(etcDir, 't1lab'), { recursive: true, mode: 0o755 });
    writeFileSync(file, shellRcText(rc), { mode: 0o644 });
    shellRcsWritten.add(file);
  }
  return name;
}
