/**
 * Red team, the kernel's attack surface: from inside a real sandbox, each family of system calls that Docker's
 * default seccomp profile refuses to an unprivileged container is called directly (python3 ctypes `syscall()`,
 * so no wrapper can hide the kernel's answer), and must fail with the filter's errno. The arguments are chosen
 * so that the kernel itself would answer differently (success, EFAULT, EINVAL, EBADF): an EPERM here is the
 * filter's. What tasks need (ptrace for gdb and strace, threads, fork, ordinary sockets) still works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AARCH64, X86_64, type SyscallTable } from '../../../native/sandbox/syscall-numbers';
import { EPERM, ENOSYS } from '../../../native/sandbox/seccomp';
import { plantCanary, type Canary } from '../../helpers/host-canary';
import { backend, leftoverSandboxes, specFor } from '../../helpers/sandbox';
import { optionalSkip } from '../../helpers/skip';
import { makeTempDir } from '../../helpers/tmp';

const table: SyscallTable | null = process.arch === 'x64' ? X86_64 : process.arch === 'arm64' ? AARCH64 : null;
const r = table?.refused ?? {};
const NULL = 0;
const CLONE_NEWUTS = 0x04000000;
const SIGCHLD = 17;

/** family -> calls: [name, syscall number, args]. Numbers missing on this architecture are left out. */
const FAMILIES: Record<string, [string, number | undefined, number[]][]> = {
  io_uring: [
    ['io_uring_setup', r.io_uring_setup, [1, NULL]],
    ['io_uring_enter', r.io_uring_enter, [-1, 0, 0, 0, NULL, 0]],
    ['io_uring_register', r.io_uring_register, [-1, 0, NULL, 0]],
  ],
  bpf: [['bpf', r.bpf, [0, NULL, 0]]],
  perf_event_open: [['perf_event_open', r.perf_event_open, [NULL, 0, -1, -1, 0]]],
  userfaultfd: [['userfaultfd', r.userfaultfd, [0]]],
  kexec: [
    ['kexec_load', r.kexec_load, [0, 0, NULL, 0]],
    ['kexec_file_load', r.kexec_file_load, [-1, -1, 0, NULL, 0]],
  ],
  modules: [
    ['init_module', r.init_module, [NULL, 0, NULL]],
    ['finit_module', r.finit_module, [-1, NULL, 0]],
    ['delete_module', r.delete_module, [NULL, 0]],
  ],
  mount: [
    ['mount', r.mount, [NULL, NULL, NULL, 0, NULL]],
    ['umount2', r.umount2, [NULL, 0]],
    ['pivot_root', r.pivot_root, [NULL, NULL]],
    ['fsopen', r.fsopen, [NULL, 0]],
    ['fsconfig', r.fsconfig, [-1, 0, NULL, NULL, 0]],
    ['fsmount', r.fsmount, [-1, 0, 0]],
    ['fspick', r.fspick, [-1, NULL, 0]],
    ['move_mount', r.move_mount, [-1, NULL, -1, NULL, 0]],
    ['open_tree', r.open_tree, [-1, NULL, 0]],
    ['mount_setattr', r.mount_setattr, [-1, NULL, 0, NULL, 0]],
  ],
  namespaces: [
    // unshare(0) and setns on a bad fd would succeed / fail with EBADF without the filter.
    ['unshare', r.unshare, [0]],
    ['setns', r.setns, [-1, 0]],
    ['clone(CLONE_NEWUTS)', table?.clone, [CLONE_NEWUTS | SIGCHLD, 0, 0, 0, 0]],
  ],
  clone3: [['clone3', table?.clone3, [NULL, 0]]],
  clock: [
    ['settimeofday', r.settimeofday, [NULL, NULL]],
    ['clock_settime', r.clock_settime, [0, NULL]],
  ],
  'system administration': [
    ['reboot', r.reboot, [0, 0, 0, NULL]],
    ['swapon', r.swapon, [NULL, 0]],
    ['swapoff', r.swapoff, [NULL]],
    ['acct', r.acct, [NULL]],
    ['syslog', r.syslog, [10, NULL, 0]],
    ['quotactl', r.quotactl, [0, NULL, 0, NULL]],
    ['vhangup', r.vhangup, []],
    ['sethostname', r.sethostname, [NULL, 0]],
    ['setdomainname', r.setdomainname, [NULL, 0]],
    ['iopl', r.iopl, [0]],
    ['ioperm', r.ioperm, [0, 0, 0]],
  ],
  'NUMA policy': [
    ['get_mempolicy', r.get_mempolicy, [NULL, NULL, 0, NULL, 0]],
    ['set_mempolicy', r.set_mempolicy, [0, NULL, 0]],
    ['mbind', r.mbind, [NULL, 0, 0, NULL, 0, 0]],
    ['migrate_pages', r.migrate_pages, [0, 0, NULL, NULL]],
    ['move_pages', r.move_pages, [0, 0, NULL, NULL, NULL, 0]],
  ],
  'other processes': [
    ['kcmp', r.kcmp, [0, 0, 0, 0, 0]],
    ['pidfd_getfd', r.pidfd_getfd, [-1, 0, 0]],
    ['process_madvise', r.process_madvise, [-1, NULL, 0, 0, 0]],
  ],
  'file handles and fanotify': [
    ['open_by_handle_at', r.open_by_handle_at, [-1, NULL, 0]],
    ['fanotify_init', r.fanotify_init, [0, 0]],
  ],
  personality: [['personality(ADDR_NO_RANDOMIZE)', table?.personality, [0x0040000]]],
  vsock: [['socket(AF_VSOCK)', table?.socket, [40, 1, 0]]],
  obsolete: [
    ['uselib', r.uselib, [NULL]],
    ['ustat', r.ustat, [0, NULL]],
    ['sysfs', r.sysfs, [1, NULL]],
    ['_sysctl', r._sysctl, [NULL]],
    ['nfsservctl', r.nfsservctl, [0, NULL, NULL]],
  ],
};

const EXPECTED_ERRNO: Record<string, number> = { clone3: ENOSYS };

/** Calls each listed syscall and prints {name: errno or 0} as JSON. */
const PROBE = `
import ctypes, json, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
out = {}
for name, nr, args in json.loads(sys.argv[1]):
    ctypes.set_errno(0)
    res = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    out[name] = ctypes.get_errno() if res == -1 else 0
print(json.dumps(out))
`;

/** What terminal tasks need keeps working: ptrace (gdb, strace), threads (clone3 falls back to clone), fork, sockets. */
const STILL_WORKS = `
import ctypes, os, socket, threading, json
libc = ctypes.CDLL(None, use_errno=True)
out = {}
pid = os.fork()
if pid == 0:
    ok = libc.ptrace(0, 0, 0, 0) == 0  # PTRACE_TRACEME
    os._exit(0 if ok else 1)
out["ptrace"] = os.waitpid(pid, 0)[1] == 0
box = []
t = threading.Thread(target=lambda: box.append(1)); t.start(); t.join()
out["threads"] = box == [1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.close()
out["unix socket"] = True
out["personality query"] = libc.personality(0xffffffff) >= 0
print(json.dumps(out))
`;

let canary: Canary;
let before: string;
const ws = makeTempDir('t1lab-redteam-syscalls-');
let errnos: Record<string, number> = {};
let works: Record<string, boolean> = {};

beforeAll(async () => {
  canary = plantCanary();
  before = canary.snapshot();
  if (!table) return;
  const calls = Object.values(FAMILIES)
    .flat()
    .filter(([, nr]) => nr !== undefined);
  const probe = await backend.run(specFor(ws.path, { wallSeconds: 30 }), [
    'python3',
    '-c',
    PROBE,
    JSON.stringify(calls),
  ]);
  expect(probe.exitCode, probe.stderr).toBe(0);
  errnos = JSON.parse(probe.stdout) as Record<string, number>;
  const still = await backend.run(specFor(ws.path, { wallSeconds: 30 }), ['python3', '-c', STILL_WORKS]);
  expect(still.exitCode, still.stderr).toBe(0);
  works = JSON.parse(still.stdout) as Record<string, boolean>;
});
afterAll(() => {
  expect(canary.snapshot(), 'the host changed').toBe(before);
  expect(leftoverSandboxes()).toEqual([]);
  canary.remove();
  ws.remove();
});

describe("red team: system calls Docker's default profile refuses", () => {
  it.for(Object.keys(FAMILIES))('%s: refused by the filter', (family, ctx) => {
    ctx.skip(!table, optionalSkip(`no syscall table for ${process.arch} (the filter covers x64 and arm64)`));
    const calls = FAMILIES[family]!.filter(([, nr]) => nr !== undefined);
    expect(calls.length).toBeGreaterThan(0);
    const got = Object.fromEntries(calls.map(([name]) => [name, errnos[name]]));
    const want = Object.fromEntries(calls.map(([name]) => [name, EXPECTED_ERRNO[name] ?? EPERM]));
    expect(got).toEqual(want);
  });

  it('what tasks need still works: ptrace (gdb, strace), threads, fork, unix sockets, personality query', (ctx) => {
    ctx.skip(!table, optionalSkip(`no syscall table for ${process.arch}`));
    expect(works).toEqual({ ptrace: true, threads: true, 'unix socket': true, 'personality query': true });
  });
});
