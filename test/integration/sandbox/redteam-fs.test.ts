/**
 * Red team, filesystem and identity: each case attacks from inside a real sandbox, then checks that it was
 * contained and that the host is unchanged (canary files, /etc/passwd, hostname, the checkout, a host process).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/cli';
import { plantCanary, type Canary } from '../../helpers/host-canary';
import { backend, leftoverSandboxes, specFor } from '../../helpers/sandbox';
import { makeTempDir } from '../../helpers/tmp';

let canary: Canary;
let before: string;
const ws = makeTempDir('t1lab-redteam-fs-');
const ro = makeTempDir('t1lab-redteam-ro-');

beforeAll(() => {
  canary = plantCanary();
  before = canary.snapshot();
});
afterAll(() => {
  canary.remove();
  ws.remove();
  ro.remove();
});

async function attack(script: string, extra: Parameters<typeof specFor>[2] = {}) {
  const r = await backend.run(specFor(ws.path, { wallSeconds: 20 }, extra), ['/bin/bash', '-c', script]);
  expect(canary.snapshot(), 'the host changed').toBe(before);
  expect(leftoverSandboxes()).toEqual([]);
  expect(`${r.stdout}${r.stderr}`).not.toContain(canary.secret);
  return r;
}

describe('red team: filesystem', () => {
  it('write-outside-workspace: system dirs are read-only and the host tmp is not the sandbox tmp', async () => {
    const r = await attack(`
      for f in /usr/t1-pwned /etc/t1-pwned /t1-pwned /bin/t1-pwned /usr/lib/t1-pwned /dev/t1-pwned /var/t1-pwned; do
        (echo x > "$f") 2>/dev/null && echo "WROTE $f"
      done
      echo x > /tmp/in-sandbox-tmp && echo tmp-ok
      ls ${canary.dir} 2>&1 | head -1
      echo pwned > ${join(canary.dir, 'secret.txt')} 2>/dev/null && echo WROTE-CANARY
      true`);
    expect(r.stdout).not.toContain('WROTE');
    expect(r.stdout).toContain('tmp-ok');
    expect(r.stdout).toContain('No such file or directory');
  });

  it('read-host-home: home directories, SSH keys and the shell history are not there', async () => {
    const r = await attack(
      `ls -A /root; ls /home 2>&1; ls ${homedir()}/.ssh 2>&1; cat /root/.bash_history 2>&1; echo done`,
    );
    expect(r.stdout).toContain('No such file or directory');
    expect(r.stdout).not.toMatch(/id_rsa|id_ed25519|authorized_keys|known_hosts/);
    expect(r.stdout.trim().endsWith('done')).toBe(true);
  });

  it('read-checkout-and-data-dir: the project checkout and the lab data dir are not visible', async () => {
    const dataDir = process.env.T1LAB_HOME ?? join(homedir(), '.local', 'share', 't1-lab');
    const r = await attack(
      `ls ${REPO_ROOT} 2>&1; ls ${dataDir} 2>&1; ls /work 2>&1; find / -xdev -name package.json -path '*t1*' 2>/dev/null | head -3; echo done`,
    );
    expect(r.stdout.match(/No such file or directory/g)?.length).toBeGreaterThanOrEqual(3);
    expect(r.stdout).not.toContain('package.json');
  });

  it('read-host-secrets-by-search: a secret planted on the host cannot be found by scanning the whole tree', async () => {
    // Everything outside /usr and /proc: the places a host secret could have been mounted.
    const r = await attack(
      `grep -rsl ${canary.secret.slice(0, 20)} /app /etc /root /tmp /run /dev /var /home /work /mnt /opt /srv 2>/dev/null | head; echo scanned`,
    );
    expect(r.stdout.trim()).toBe('scanned');
  });

  it('minimal-etc: no host accounts, shadow passwords or SSH host keys', async () => {
    const r = await attack('cat /etc/passwd; ls /etc/shadow /etc/ssh /etc/sudoers 2>&1; hostname');
    expect(r.stdout).toMatch(/^root:x:0:0:root:\/root:\/bin\/bash\nnobody:/);
    expect(r.stdout.split('\n').filter((l) => l.includes(':x:')).length).toBe(2);
    expect(r.stdout.match(/No such file or directory/g)?.length).toBe(3);
    expect(r.stdout.trim().endsWith('sandbox')).toBe(true);
  });

  it('etc-key-material: no /etc/ssl/private, no /etc file only root may read; the CA certificates are there', async () => {
    // Running as root (as CI does), a bound /etc/ssl exposed /etc/ssl/private (TLS keys) to the sandbox.
    const r = await attack(
      'ls -d /etc/ssl/private 2>&1; find /etc ! -type l \\( -type f ! -perm -o=r -o -type d ! -perm -o=rx \\) -print | head; echo; ls /etc/ssl; ls /etc/ssl/certs | grep -c .',
    );
    const [privateDir, ...rest] = r.stdout.split('\n');
    expect(privateDir).toMatch(/No such file or directory/);
    const blank = rest.indexOf('');
    expect(rest.slice(0, blank), 'files or folders not every user may read').toEqual([]);
    expect(rest.slice(blank + 1, blank + 3)).toEqual(['certs', 'openssl.cnf']);
    expect(Number(rest[blank + 3])).toBeGreaterThan(0);
  });

  it('read-only-mount: an extra read-only mount (like /tests) cannot be written', async () => {
    const r = await attack('(echo x > /tests/injected) 2>&1; (mkdir /tests/d) 2>&1; echo done', {
      mounts: [{ host: ro.path, sandbox: '/tests', readOnly: true }],
    });
    expect(r.stdout.match(/Read-only file system/g)?.length).toBe(2);
  });

  it('proc-root-escape: /proc/1/root and /proc/self/cwd lead back into the sandbox', async () => {
    const r = await attack(
      `ls /proc/1/root/ | tr "\\n" " "; echo; ls /proc/1/root${REPO_ROOT} 2>&1; readlink /proc/self/cwd /proc/1/cwd`,
    );
    const [rootListing, missing, cwd, initCwd] = r.stdout.split('\n');
    expect(rootListing?.trim().split(' ').sort()).toEqual([
      'app',
      'bin',
      'dev',
      'etc',
      'lib',
      'lib64',
      'proc',
      'root',
      'run',
      'sbin',
      'tmp',
      'usr',
      'var',
    ]);
    expect(missing).toContain('No such file or directory');
    expect(cwd).toBe('/app');
    expect(initCwd).toBe('/app');
  });

  it('no-sys-no-devices: /sys is absent, device nodes are the minimal set, mknod fails', async () => {
    const r = await attack(
      'ls /sys 2>&1 | head -1; ls /dev | tr "\\n" " "; echo; mknod /tmp/sda b 8 0 2>&1; (echo 1 > /proc/sysrq-trigger) 2>&1; true',
    );
    const [sys, dev, mknod, sysrq] = r.stdout.split('\n');
    expect(sys).toMatch(/\/sys': No such file or directory/);
    expect(dev?.trim().split(' ').sort()).toEqual(
      [
        'console',
        'core',
        'fd',
        'full',
        'null',
        'ptmx',
        'pts',
        'random',
        'shm',
        'stderr',
        'stdin',
        'stdout',
        'tty',
        'urandom',
        'zero',
      ].filter((d) => d !== 'console' || dev?.includes('console')),
    );
    expect(mknod).toMatch(/mknod: \/tmp\/sda: Operation not permitted/);
    expect(sysrq).toMatch(/No such file or directory|Read-only file system|Permission denied/);
  });
});

describe('red team: privilege', () => {
  it('setuid-binaries: su, mount and a setuid binary give no capability; no_new_privs is set', async () => {
    const r = await attack(`
      grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status
      su -c id nobody 2>&1 | head -1
      mount -t tmpfs none /mnt 2>&1 | head -1
      for b in /usr/bin/passwd /usr/bin/chsh /usr/bin/newgrp; do [ -u "$b" ] && "$b" --help >/dev/null 2>&1; done
      /usr/bin/env bash -c 'grep CapEff /proc/self/status'
      chroot / true 2>&1 | head -1
      hostname pwned 2>&1 | head -1
      true`);
    expect(r.stdout).toMatch(/CapEff:\s+0000000000000000/);
    expect(r.stdout).toMatch(/CapBnd:\s+0000000000000000/);
    expect(r.stdout).toMatch(/NoNewPrivs:\s+1/);
    expect(r.stdout.match(/CapEff:\s+0000000000000000/g)?.length).toBe(2);
    expect(r.stdout).toMatch(/chroot: cannot change root directory to '\/': Operation not permitted/);
    expect(r.stdout).toMatch(/hostname: you must be root to change the host name|Operation not permitted/);
  });

  it('nested-user-namespace: unshare -U is refused (no new namespaces, no kernel attack surface)', async () => {
    const r = await attack('unshare -U -r id 2>&1; unshare -n true 2>&1; echo done');
    expect(r.stdout).not.toMatch(/^uid=/m);
    expect(r.stdout.match(/unshare failed/g)?.length).toBe(2);
  });

  it('kernel-keyring: keyctl, add_key and request_key are refused', async () => {
    const r = await attack(`python3 -c '
import ctypes, ctypes.util
libc = ctypes.CDLL(None, use_errno=True)
for name, nr in (("add_key", 248), ("request_key", 249), ("keyctl", 250)):
    res = libc.syscall(nr, 0, 0, 0, 0, 0)
    print(name, res, ctypes.get_errno())
'`);
    expect(r.stdout).toBe('add_key -1 1\nrequest_key -1 1\nkeyctl -1 1\n');
  });

  it('host-secrets-in-env: the environment is scrubbed to the known set', async () => {
    process.env.T1LAB_TEST_SECRET = canary.secret;
    process.env.AWS_SECRET_ACCESS_KEY = canary.secret;
    process.env.SSH_AUTH_SOCK = '/tmp/ssh-agent.sock';
    try {
      const r = await attack(
        'env | cut -d= -f1 | sort | tr "\\n" " "; cat /proc/1/environ | tr "\\0" "\\n" | cut -d= -f1 | sort | tr "\\n" " "',
      );
      const names = r.stdout.trim().split(/\s+/);
      for (const n of names)
        expect(['HOME', 'LANG', 'LOGNAME', 'PATH', 'PWD', 'SHELL', 'SHLVL', 'TERM', 'USER', '_']).toContain(n);
      expect(r.stdout).not.toMatch(/SECRET|SSH_AUTH_SOCK|T1LAB/);
    } finally {
      delete process.env.T1LAB_TEST_SECRET;
      delete process.env.AWS_SECRET_ACCESS_KEY;
      delete process.env.SSH_AUTH_SOCK;
    }
  });
});
