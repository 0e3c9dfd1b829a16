import { describe, expect, it } from 'vitest';
import {
  ALLOWED_PERSONALITIES,
  AF_VSOCK,
  CLONE_NAMESPACE_FLAGS,
  evaluateSeccomp,
  SECCOMP_ARCH,
  seccompProgram,
  TIOCLINUX,
  TIOCSTI,
} from '../../../native/sandbox/seccomp';

/** Syscalls every shell, compiler and test runner uses: x86_64 numbers of read, write, openat, execve, ptrace, process_vm_readv. */
const ORDINARY_X64 = [0, 1, 257, 59, 101, 310];
const CLONE_NEWUSER = 0x10000000;
const CLONE_THREAD_FLAGS = 0x3d0f00; // what pthread_create passes
const SIGCHLD = 17;

describe('seccomp filter', () => {
  for (const arch of ['x64', 'arm64'] as const) {
    const program = seccompProgram(arch) as Buffer;
    const { native, compat } = SECCOMP_ARCH[arch];
    for (const [abiName, abi] of [
      ['native', native],
      ['compat', compat],
    ] as const) {
      const t = abi.table;
      const run = (nr: number, args: { arg0?: number; arg1?: number } = {}) =>
        evaluateSeccomp(program, { arch: abi.arch, nr, ...args });
      describe(`${arch} ${abiName} ABI`, () => {
        it('refuses TIOCSTI and TIOCLINUX ioctls, also with junk in the upper 32 bits; allows TCGETS and TIOCGWINSZ', () => {
          expect(run(t.ioctl, { arg1: TIOCSTI })).toBe('eperm');
          expect(run(t.ioctl, { arg1: TIOCLINUX })).toBe('eperm');
          // The kernel compares the request as unsigned int: only the low word is loaded.
          expect(run(t.ioctl, { arg1: TIOCSTI + 2 ** 32 })).toBe('eperm');
          expect(run(t.ioctl, { arg1: 0x5401 })).toBe('allow');
          expect(run(t.ioctl, { arg1: 0x5413 })).toBe('allow');
        });
        it("refuses with EPERM every call Docker's default profile refuses to an unprivileged container", () => {
          for (const [name, nr] of Object.entries(t.refused)) expect([name, run(nr)]).toEqual([name, 'eperm']);
          expect(Object.keys(t.refused)).toEqual(
            expect.arrayContaining([
              'io_uring_setup',
              'bpf',
              'perf_event_open',
              'userfaultfd',
              'keyctl',
              'mount',
              'unshare',
              'setns',
            ]),
          );
        });
        it('clone: threads and fork pass, any namespace flag is refused; clone3 gets ENOSYS (the C library falls back to clone)', () => {
          expect(run(t.clone, { arg0: CLONE_THREAD_FLAGS })).toBe('allow');
          expect(run(t.clone, { arg0: SIGCHLD })).toBe('allow');
          expect(run(t.clone, { arg0: SIGCHLD | CLONE_NEWUSER })).toBe('eperm');
          expect(run(t.clone, { arg0: CLONE_NAMESPACE_FLAGS })).toBe('eperm');
          expect(run(t.clone3)).toBe('enosys');
        });
        it('personality: only the values Docker allows; socket: every family but AF_VSOCK', () => {
          for (const p of ALLOWED_PERSONALITIES) expect(run(t.personality, { arg0: p })).toBe('allow');
          expect(run(t.personality, { arg0: 0x0040000 })).toBe('eperm'); // ADDR_NO_RANDOMIZE
          expect(run(t.socket, { arg0: 2 })).toBe('allow');
          expect(run(t.socket, { arg0: 1 })).toBe('allow');
          expect(run(t.socket, { arg0: AF_VSOCK })).toBe('eperm');
        });
      });
    }
    it(`${arch}: refuses syscalls of an unknown architecture`, () => {
      expect(evaluateSeccomp(program, { arch: 0x12345678, nr: 0 })).toBe('eperm');
    });
  }
  it('allows ordinary syscalls, ptrace and process_vm_readv included (gdb and strace tasks)', () => {
    const program = seccompProgram('x64') as Buffer;
    for (const nr of ORDINARY_X64)
      expect(evaluateSeccomp(program, { arch: SECCOMP_ARCH.x64.native.arch, nr })).toBe('allow');
  });
  it('refuses every x32-ABI syscall on x86_64', () => {
    const program = seccompProgram('x64') as Buffer;
    expect(evaluateSeccomp(program, { arch: SECCOMP_ARCH.x64.native.arch, nr: 0x40000000 + 16, arg1: TIOCSTI })).toBe(
      'eperm',
    );
    expect(evaluateSeccomp(program, { arch: SECCOMP_ARCH.x64.native.arch, nr: 0x40000000 })).toBe('eperm');
  });
  it('has no program for an architecture without a syscall table', () => {
    expect(seccompProgram('mips')).toBeNull();
  });
});
