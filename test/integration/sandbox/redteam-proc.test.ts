/**
 * Red team, processes and terminals: seeing, signalling or tracing host processes, TIOCSTI injection,
 * processes that try to outlive their sandbox. Each case checks containment and that the host is unchanged.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShellSession } from '../../../native/pty/index';
import { plantCanary, type Canary } from '../../helpers/host-canary';
import { backend, leftoverSandboxes, specFor } from '../../helpers/sandbox';
import { makeTempDir } from '../../helpers/tmp';

let canary: Canary;
let before: string;
const ws = makeTempDir('t1lab-redteam-proc-');

beforeAll(() => {
  canary = plantCanary();
  before = canary.snapshot();
});
afterAll(() => {
  canary.remove();
  ws.remove();
});

function hostUnchanged(): void {
  expect(canary.snapshot(), 'the host changed').toBe(before);
  expect(leftoverSandboxes()).toEqual([]);
}

async function attack(script: string, limits: Parameters<typeof specFor>[1] = {}) {
  const r = await backend.run(specFor(ws.path, { wallSeconds: 20, ...limits }), ['/bin/bash', '-c', script]);
  hostUnchanged();
  return r;
}

/** Host processes whose command line contains `needle`. */
function hostProcessesWith(needle: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle)) found.push(Number(pid));
    } catch {
      // gone
    }
  }
  return found;
}

describe('red team: processes', () => {
  it('see-host-processes: only the sandbox is in its process list', async () => {
    const r = await attack('ls /proc | grep -E "^[0-9]+$" | wc -l; ps -eo comm= 2>/dev/null | sort | tr "\\n" " "');
    const [count] = r.stdout.split('\n');
    expect(Number(count)).toBeLessThanOrEqual(5);
    expect(r.stdout).not.toMatch(/node|sleep|vitest|systemd/);
  });

  it('signal-host-processes: kill -9 -1 and kill of a host pid reach nothing outside', async () => {
    const victim = canary.victim.pid as number;
    const r = await attack(`kill -9 ${victim} 2>&1; kill -9 ${process.pid} 2>&1; kill -9 -1 2>&1; echo after-kill-all`);
    expect(r.stdout).toMatch(/No such process/);
    expect(canary.victim.exitCode).toBeNull();
    expect(canary.victim.signalCode).toBeNull();
  });

  it('ptrace-host-process: PTRACE_ATTACH to a host pid fails, /proc/<host pid> does not exist', async () => {
    const victim = canary.victim.pid as number;
    const r = await attack(`python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
res = libc.ptrace(16, ${victim}, 0, 0)
print("attach", res, ctypes.get_errno())
print("proc", os.path.exists("/proc/${victim}/mem"))
'`);
    expect(r.stdout).toBe(`attach -1 3\nproc False\n`);
    expect(canary.victim.exitCode).toBeNull();
  });

  it('outlive-the-sandbox: daemonized processes die with it', async () => {
    const marker = `sleep ${700 + Math.floor(Math.random() * 99)}`;
    await attack(`(setsid nohup ${marker} >/dev/null 2>&1 &); (${marker} &) ; disown -a; echo detached`);
    await new Promise((r) => setTimeout(r, 300));
    expect(hostProcessesWith(marker.replace(' ', '\0'))).toEqual([]);
  });

  it('tiocsti-run: a command without a terminal cannot reach the caller\'s terminal or inject input', async () => {
    const r = await attack(`python3 -c '
import fcntl, termios, os
try:
    os.open("/dev/tty", os.O_RDWR); print("tty opened")
except OSError as e: print("tty", e.errno)
for fd in (0, 1, 2):
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"x"); print("injected", fd)
    except OSError as e: print("sti", e.errno)
'`);
    expect(r.stdout).toBe('tty 6\nsti 1\nsti 1\nsti 1\n');
  });

  it('tiocsti-session: in an interactive session TIOCSTI is refused, so nothing is typed for the agent', async () => {
    const s = await createShellSession({ backend, spec: specFor(ws.path) });
    try {
      const r = await s.run(`python3 -c '
import fcntl, termios
try:
    for ch in "touch /app/injected\\n": fcntl.ioctl(0, termios.TIOCSTI, ch.encode())
    print("INJECTED")
except OSError as e: print("sti", e.errno)
'`);
      expect(r.output).toBe('sti 1\n');
      await new Promise((res) => setTimeout(res, 300));
      expect((await s.run('ls /app')).output).not.toContain('injected');
    } finally {
      await s.close();
    }
    hostUnchanged();
  });

  it('other-sandbox: two sandboxes cannot see each other\'s files or processes', async () => {
    const other = makeTempDir('t1lab-redteam-other-');
    try {
      const neighbour = await createShellSession({ backend, spec: specFor(other.path) });
      await neighbour.run('echo neighbour-secret > /app/private.txt; sleep 30 &');
      const r = await backend.run(specFor(ws.path), ['/bin/bash', '-c', `cat ${other.path}/private.txt 2>&1; grep -rs neighbour-secret /app /tmp; ps -eo comm= | grep -c sleep`]);
      await neighbour.close();
      hostUnchanged();
      expect(r.stdout).toMatch(/No such file or directory/);
      expect(r.stdout).not.toContain('neighbour-secret');
      expect(r.stdout.trim().split('\n').at(-1)).toBe('0');
    } finally {
      other.remove();
    }
  });
});
