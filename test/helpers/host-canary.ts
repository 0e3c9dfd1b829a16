/**
 * For red-team tests: things on the host that a sandbox must neither see nor change, and a snapshot to
 * show afterwards that the host is as it was. The canary lives outside every workspace, with a secret
 * the sandbox must not be able to print.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './cli';
import { makeTempDir } from './tmp';

export interface Canary {
  dir: string;
  secret: string;
  /** A host process the sandbox must not be able to see, signal or trace. */
  victim: ChildProcess;
  snapshot(): string;
  remove(): void;
}

function hashTree(dir: string): string {
  const h = createHash('sha256');
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const st = statSync(path);
    h.update(`${name}:${st.mode}:${st.size}:${st.mtimeMs}\n`);
    if (st.isFile()) h.update(readFileSync(path));
  }
  return h.digest('hex');
}

export function plantCanary(): Canary {
  const tmp = makeTempDir('t1lab-canary-');
  const secret = `CANARY-${randomBytes(12).toString('hex')}`;
  writeFileSync(join(tmp.path, 'secret.txt'), `${secret}\n`);
  writeFileSync(join(tmp.path, 'id_ed25519'), `-----BEGIN OPENSSH PRIVATE KEY-----\n${secret}\n`);
  const victim = spawn('sleep', ['600'], { stdio: 'ignore' });
  const gitStatus = () => spawnSync('git', ['status', '--porcelain'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout;
  return {
    dir: tmp.path,
    secret,
    victim,
    snapshot: () =>
      JSON.stringify({
        canary: hashTree(tmp.path),
        passwd: createHash('sha256').update(readFileSync('/etc/passwd')).digest('hex'),
        hostname: hostname(),
        checkout: gitStatus(),
        victimAlive: victim.exitCode === null && victim.signalCode === null,
      }),
    remove() {
      victim.kill('SIGKILL');
      tmp.remove();
    },
  };
}
