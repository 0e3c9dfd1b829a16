/**
 * Files the sandbox needs that the host must not provide as-is, written once per process into a private
 * temp directory (0700) and removed when the process exits:
 *   - the sandbox's /etc: a minimal passwd/group (the host's list its users and their home directories),
 *     hosts and hostname, plus copies of the allowlisted host files; allowlisted host directories (ssl,
 *     alternatives, ...) are bound on top. One bind for /etc instead of thirty keeps sandboxes quick to start.
 *   - the seccomp program.
 */
import { copyFileSync, lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { seccompProgram } from './seccomp';
import { makeOwnedTempDirSync } from '../util/temp-dirs';

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
  /** Host /etc subdirectories bound on top of it (read-only). */
  etcSubdirs: string[];
  /** The seccomp program file, or null where no filter exists for this architecture. */
  seccomp: string | null;
}

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
      if (st.isSymbolicLink()) symlinkSync(readlinkSync(host), join(etcDir, name));
      else if (st.isDirectory()) {
        mkdirSync(join(etcDir, name));
        etcSubdirs.push(host);
      } else if (st.isFile()) copyFileSync(host, join(etcDir, name));
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
