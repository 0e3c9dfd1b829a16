/**
 * An sshd of the test's own, as an `ssh://` engine host: its own config in a temp folder, loopback on a
 * free port, a fresh host key, key-only login for root with its own authorized_keys, and `SetEnv
 * DOCKER_HOST=...` so the `docker system dial-stdio` that dockerode runs there reaches the engine given. With
 * it an ssh-agent holding a fresh client key (the lab authenticates through SSH_AUTH_SOCK, as dockerode does).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopEngine } from './engine-service';
import { missingProgram, optionalSkip } from './skip';
import { freePort } from './ports';

/** sshd must be started by its absolute path (it re-executes itself for each connection). */
const SSHD = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((p) => existsSync(p));

/** Why an sshd engine host cannot run here, or null. */
export function sshdSkip(): string | null {
  if (process.getuid?.() !== 0) return optionalSkip('the ssh engine host is tested as root (sshd logs in as root)');
  return (
    (SSHD ? null : missingProgram('sshd', 'openssh-server')) ??
    missingProgram('ssh-agent', 'openssh-client') ??
    missingProgram('ssh-add', 'openssh-client') ??
    missingProgram('ssh-keygen', 'openssh-client') ??
    missingProgram('ssh-keyscan', 'openssh-client') ??
    missingProgram('docker', 'docker.io')
  );
}

export interface Sshd {
  port: number;
  /** The sshd's host key, as known_hosts holds it ("ssh-ed25519 BASE64"). */
  hostKey: string;
  /** Its fingerprint, as `ssh-keygen -lf` prints it (SHA256:...). */
  fingerprint: string;
  /** The agent's socket, holding the key root may log in with: SSH_AUTH_SOCK for the lab. */
  agentSocket: string;
  stop(): Promise<void>;
}

function keygen(path: string): void {
  const r = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 't1lab-test', '-f', path], {
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`ssh-keygen -f ${path} failed: ${r.stderr}`);
}

/** A fresh ed25519 public key as known_hosts holds it (for a known_hosts that names the wrong key). */
export function otherHostKey(dir: string): string {
  keygen(join(dir, 'other_key'));
  return publicLine(join(dir, 'other_key.pub'));
}

const publicLine = (pub: string) => readFileSync(pub, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');

/** Resolves when `child` writes `line` to stderr; throws with its output when it exits first or `ms` pass. */
function waitForLine(child: ChildProcess, line: RegExp, what: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => fail(`no "${line.source}" within ${ms / 1000} s`), ms);
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`${what}: ${why}:\n${log}`));
    };
    child.stderr?.on('data', (d: Buffer) => {
      log = (log + d.toString()).slice(-4000);
      if (!line.test(log)) return;
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => fail(`exited (${code})`));
  });
}

/** Start sshd and an agent in `dir`; the engine at `dockerHost` (unix://...) is what `docker` reaches there. */
export async function startSshd(dir: string, dockerHost: string): Promise<Sshd> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // sshd refuses to start without its privilege separation folder (made by the init script otherwise).
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'client_key'));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')));
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      'PidFile none',
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      // The keys live under /tmp, world-writable: strict modes would refuse authorized_keys there.
      'StrictModes no',
      `SetEnv DOCKER_HOST=${dockerHost}`,
      '',
    ].join('\n'),
  );
  const sshd = spawn(SSHD as string, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  const agentSocket = join(dir, 'agent.sock');
  const agent = spawn('ssh-agent', ['-D', '-a', agentSocket], { stdio: ['ignore', 'ignore', 'pipe'] });
  const stop = async () => {
    await stopEngine(sshd, 5_000);
    await stopEngine(agent, 5_000);
  };
  try {
    await waitForLine(sshd, /Server listening on 127\.0\.0\.1/, 'sshd', 15_000);
    for (let i = 0; !existsSync(agentSocket); i++) {
      if (i > 100 || agent.exitCode !== null) throw new Error(`ssh-agent made no socket at ${agentSocket}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const add = spawnSync('ssh-add', [join(dir, 'client_key')], {
      env: { ...process.env, SSH_AUTH_SOCK: agentSocket },
      encoding: 'utf8',
    });
    if (add.status !== 0) throw new Error(`ssh-add failed: ${add.stderr}`);
  } catch (e) {
    await stop();
    throw e;
  }
  const print = spawnSync('ssh-keygen', ['-lf', join(dir, 'host_key.pub')], { encoding: 'utf8' }).stdout;
  return {
    port,
    hostKey: publicLine(join(dir, 'host_key.pub')),
    fingerprint: /SHA256:\S+/.exec(print)?.[0] ?? '',
    agentSocket,
    stop,
  };
}
