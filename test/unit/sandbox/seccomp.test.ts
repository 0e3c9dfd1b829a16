import { describe, expect, it } from 'vitest';
import { evaluateSeccomp, SECCOMP_ARCH, seccompProgram, TIOCLINUX, TIOCSTI } from '../../../native/sandbox/seccomp';

describe('seccomp filter', () => {
  for (const arch of ['x64', 'arm64'] as const) {
    const program = seccompProgram(arch) as Buffer;
    const { native, compat } = SECCOMP_ARCH[arch];
    describe(arch, () => {
      it('refuses TIOCSTI and TIOCLINUX ioctls, also with junk in the upper 32 bits', () => {
        expect(evaluateSeccomp(program, { arch: native.arch, nr: native.ioctl, arg1: TIOCSTI })).toBe('eperm');
        expect(evaluateSeccomp(program, { arch: native.arch, nr: native.ioctl, arg1: TIOCLINUX })).toBe('eperm');
        // The kernel compares the request as unsigned int: only the low word is loaded.
        expect(evaluateSeccomp(program, { arch: native.arch, nr: native.ioctl, arg1: TIOCSTI + 2 ** 32 })).toBe('eperm');
      });
      it('allows other ioctls (TCGETS, TIOCGWINSZ) and ordinary syscalls', () => {
        expect(evaluateSeccomp(program, { arch: native.arch, nr: native.ioctl, arg1: 0x5401 })).toBe('allow');
        expect(evaluateSeccomp(program, { arch: native.arch, nr: native.ioctl, arg1: 0x5413 })).toBe('allow');
        expect(evaluateSeccomp(program, { arch: native.arch, nr: 0 })).toBe('allow');
        expect(evaluateSeccomp(program, { arch: native.arch, nr: 59 })).toBe('allow');
      });
      it('refuses the keyring syscalls', () => {
        for (const nr of native.denied) expect(evaluateSeccomp(program, { arch: native.arch, nr })).toBe('eperm');
      });
      it('applies the same checks to the 32-bit compat ABI', () => {
        expect(evaluateSeccomp(program, { arch: compat.arch, nr: compat.ioctl, arg1: TIOCSTI })).toBe('eperm');
        for (const nr of compat.denied) expect(evaluateSeccomp(program, { arch: compat.arch, nr })).toBe('eperm');
        expect(evaluateSeccomp(program, { arch: compat.arch, nr: 3 })).toBe('allow');
      });
      it('refuses syscalls of an unknown architecture', () => {
        expect(evaluateSeccomp(program, { arch: 0x12345678, nr: 0 })).toBe('eperm');
      });
    });
  }
  it('refuses every x32-ABI syscall on x86_64', () => {
    const program = seccompProgram('x64') as Buffer;
    expect(evaluateSeccomp(program, { arch: SECCOMP_ARCH.x64.native.arch, nr: 0x40000000 + 16, arg1: TIOCSTI })).toBe('eperm');
    expect(evaluateSeccomp(program, { arch: SECCOMP_ARCH.x64.native.arch, nr: 0x40000000 })).toBe('eperm');
  });
  it('has no program for an architecture without a syscall table', () => {
    expect(seccompProgram('mips')).toBeNull();
  });
});
