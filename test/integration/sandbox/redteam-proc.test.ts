/**
 * Red team, processes and terminals: seeing, signalling or tracing host processes, TIOCSTI injection,
 * processes that try to outlive their sandbox. Each case checks containment and that the host is unchanged.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShellSession } from '../../../native/pty/index';
import { plantCanary, type Canary } from '../../helpers/host-canary';
import { backend, backendWithoutCgroups, leftoverSandboxes, specFor } from '../../helpers/sandbox';
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

  it("tiocsti-run: a command without a terminal cannot reach the caller's terminal or inject input", async () => {
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

  it('session-limits: the interactive shell runs with every limit, as hard limits it cannot raise', async () => {
    // Without cgroups, so that the address-space rlimit applies too.
    const s = await createShellSession({
      backend: backendWithoutCgroups,
      spec: specFor(ws.path, { processes: 77, openFiles: 333, fileSizeMb: 12, cpuSeconds: 55, memoryMb: 500 }),
    });
    try {
      const limits = (await s.run('cat /proc/self/limits')).output;
      const row = (name: string) => new RegExp(`^${name}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(limits)?.slice(1);
      expect(row('Max processes')).toEqual(['77', '77']);
      expect(row('Max open files')).toEqual(['333', '333']);
      expect(row('Max file size')).toEqual([String(12 * 1024 * 1024), String(12 * 1024 * 1024)]);
      expect(row('Max cpu time')).toEqual(['55', '56']);
      expect(row('Max core file size')).toEqual(['0', '0']);
      expect(row('Max address space')).toEqual([String(500 * 1024 * 1024), String(500 * 1024 * 1024)]);
      const raised = await s.run(
        'n=0; for o in u n t f c v; do ulimit -H -$o unlimited 2>/dev/null && n=$((n+1)); done; echo $n; ulimit -Hu',
      );
      expect(raised.output).toBe('0\n77\n');
    } finally {
      await s.close();
    }
    hostUnchanged();
  });

  it('session-privileges: no capabilities, no_new_privs, the seccomp filter and a scrubbed environment in the interactive shell', async () => {
    const s = await createShellSession({ backend, spec: specFor(ws.path) });
    try {
      const status = (await s.run("grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status")).output;
      expect(status).toMatch(/CapEff:\s+0000000000000000/);
      expect(status).toMatch(/CapBnd:\s+0000000000000000/);
      expect(status).toMatch(/NoNewPrivs:\s+1/);
      expect(status).toMatch(/Seccomp:\s+2/);
      const names = (await s.run('env | cut -d= -f1 | sort | tr "\\n" " "')).output.trim().split(/\s+/);
      for (const n of names)
        expect(['HOME', 'LANG', 'LOGNAME', 'PATH', 'PWD', 'SHELL', 'SHLVL', 'TERM', 'USER', '_']).toContain(n);
      expect((await s.run('unshare -U true 2>&1; echo $?')).output).toMatch(/unshare failed[\s\S]*\n1\n$/);
    } finally {
      await s.close();
    }
    hostUnchanged();
  });

  it('session-orphans: processes orphaned inside the shell are reaped, no zombies pile up', async () => {
    const s = await createShellSession({ backend, spec: specFor(ws.path) });
    try {
      const r = await s.run(
        'for i in 1 2 3 4 5; do (sleep 0.1 &); done; sleep 1; ps -eo stat=,comm= | grep -c "^Z" || true',
      );
      expect(r.output).toBe('0\n');
    } finally {
      await s.close();
    }
    hostUnchanged();
  });

  it("other-sandbox: two sandboxes cannot see each other's files or processes", async () => {
    const other = makeTempDir('t1lab-redteam-other-');
    try {
      const neighbour = await createShellSession({ backend, spec: specFor(other.path) });
      await neighbour.run('echo neighbour-secret > /app/private.txt; sleep 30 &');
      const r = await backend.run(specFor(ws.path), [
        '/bin/bash',
        '-c',
        `cat ${other.path}/private.txt 2>&1; grep -rs neighbour-secret /app /tmp; ps -eo comm= | grep -c sleep`,
      ]);
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
