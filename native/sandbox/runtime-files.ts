/**
 * Files the sandbox needs that the host must not provide as-is: a minimal passwd/group (the host's list
 * its users and their home directories), hosts, hostname, and the seccomp program. Written once per
 * process into a private temp directory (0700) and removed when the process exits.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seccompProgram } from './seccomp';

export const SANDBOX_HOSTNAME = 'sandbox';

export interface RuntimeFiles {
  dir: string;
  /** Host paths of generated files, keyed by where they appear inside the sandbox. */
  etc: Record<string, string>;
  /** The seccomp program file, or null where no filter exists for this architecture. */
  seccomp: string | null;
}

let files: RuntimeFiles | null = null;

export function runtimeFiles(): RuntimeFiles {
  if (files) return files;
  const dir = mkdtempSync(join(tmpdir(), 't1lab-sandbox-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const contents: Record<string, string> = {
    '/etc/passwd': 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n',
    '/etc/group': 'root:x:0:\nnogroup:x:65534:\n',
    '/etc/hosts': `127.0.0.1\tlocalhost ${SANDBOX_HOSTNAME}\n::1\tlocalhost ip6-localhost ip6-loopback\n`,
    '/etc/hostname': `${SANDBOX_HOSTNAME}\n`,
  };
  const etc: Record<string, string> = {};
  for (const [inside, text] of Object.entries(contents)) {
    const host = join(dir, inside.replace(/^\/etc\//, 'etc-'));
    writeFileSync(host, text, { mode: 0o644 });
    etc[inside] = host;
  }
  const program = seccompProgram();
  let seccomp: string | null = null;
  if (program) {
    seccomp = join(dir, 'seccomp.bpf');
    writeFileSync(seccomp, program, { mode: 0o600 });
  }
  files = { dir, etc, seccomp };
  return files;
}
