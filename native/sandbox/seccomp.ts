/**
 * A small classic-BPF seccomp filter, handed to bwrap with `--seccomp FD`. It refuses, with EPERM:
 *   - ioctl TIOCSTI (push characters into a terminal's input queue) and TIOCLINUX (console tricks):
 *     the classic escape from a shared terminal; Flatpak blocks them the same way;
 *   - keyctl, add_key, request_key: the kernel keyring is not fully namespaced, so a sandbox must not reach it;
 *   - every x32-ABI syscall on x86_64 (an alternate syscall table a filter could otherwise miss).
 * The 32-bit compat ABI (i386 on x86_64, arm on aarch64) gets the same checks with its own numbers.
 * Written by hand because no maintained npm package compiles seccomp filters without libseccomp; the
 * program is twenty instructions and its unit test decodes it back.
 */

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_RET_K = 0x06;

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;

/** Offsets into struct seccomp_data. */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** Low 32 bits of args[1] on little-endian machines (the kernel compares ioctl requests as unsigned int). */
const OFFSET_ARG1_LOW = 24;

export const TIOCSTI = 0x5412;
export const TIOCLINUX = 0x541c;

interface Abi {
  arch: number;
  ioctl: number;
  denied: number[];
  /** Syscall numbers at or above this are another ABI (x32): denied. */
  denyFrom?: number;
}

const ABIS: Record<string, { native: Abi; compat: Abi }> = {
  x64: {
    native: { arch: 0xc000003e, ioctl: 16, denied: [248, 249, 250], denyFrom: 0x40000000 },
    compat: { arch: 0x40000003, ioctl: 54, denied: [286, 287, 288] },
  },
  arm64: {
    native: { arch: 0xc00000b7, ioctl: 29, denied: [217, 218, 219] },
    compat: { arch: 0x40000028, ioctl: 54, denied: [309, 310, 311] },
  },
};

interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** The filter for this machine's architecture, or null where we have no syscall table (then bwrap runs without one). */
export function seccompProgram(arch: string = process.arch): Buffer | null {
  const abis = ABIS[arch];
  if (!abis) return null;
  return encode(buildProgram(abis.native, abis.compat));
}

/**
 * Layout: [arch check] [native ABI block] [compat ABI block] [allow] [ioctl check] [deny].
 * Jumps are relative and computed from the block sizes below.
 */
function buildProgram(native: Abi, compat: Abi): Insn[] {
  const block = (abi: Abi, jumpToIoctl: (at: number) => number, jumpToDeny: (at: number) => number, jumpToAllow: (at: number) => number): ((start: number) => Insn[]) => {
    return (start) => {
      const out: Insn[] = [];
      const at = () => start + out.length;
      out.push({ code: BPF_LD_W_ABS, jt: 0, jf: 0, k: OFFSET_NR });
      if (abi.denyFrom !== undefined) out.push({ code: BPF_JGE_K, jt: jumpToDeny(at()), jf: 0, k: abi.denyFrom });
      out.push({ code: BPF_JEQ_K, jt: jumpToIoctl(at()), jf: 0, k: abi.ioctl });
      for (const nr of abi.denied) out.push({ code: BPF_JEQ_K, jt: jumpToDeny(at()), jf: 0, k: nr });
      out.push({ code: BPF_JEQ_K, jt: 0, jf: 0, k: 0 }); // placeholder replaced by an unconditional jump to allow
      const last = out.length - 1;
      out[last] = { code: BPF_JEQ_K, jt: jumpToAllow(start + last), jf: jumpToAllow(start + last), k: 0 };
      return out;
    };
  };
  const blockSize = (abi: Abi) => 1 + (abi.denyFrom !== undefined ? 1 : 0) + 1 + abi.denied.length + 1;
  // Positions.
  const archCheck = 3; // ld arch; jeq native; jeq compat (else deny)
  const nativeStart = archCheck;
  const compatStart = nativeStart + blockSize(native);
  const allowAt = compatStart + blockSize(compat);
  const ioctlAt = allowAt + 1;
  const denyAt = ioctlAt + 4;
  const rel = (target: number) => (from: number) => target - from - 1;
  const program: Insn[] = [
    { code: BPF_LD_W_ABS, jt: 0, jf: 0, k: OFFSET_ARCH },
    { code: BPF_JEQ_K, jt: rel(nativeStart)(1), jf: 0, k: native.arch },
    { code: BPF_JEQ_K, jt: rel(compatStart)(2), jf: rel(denyAt)(2), k: compat.arch },
    ...block(native, rel(ioctlAt), rel(denyAt), rel(allowAt))(nativeStart),
    ...block(compat, rel(ioctlAt), rel(denyAt), rel(allowAt))(compatStart),
    { code: BPF_RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW },
    { code: BPF_LD_W_ABS, jt: 0, jf: 0, k: OFFSET_ARG1_LOW },
    { code: BPF_JEQ_K, jt: rel(denyAt)(ioctlAt + 1), jf: 0, k: TIOCSTI },
    { code: BPF_JEQ_K, jt: rel(denyAt)(ioctlAt + 2), jf: 0, k: TIOCLINUX },
    { code: BPF_RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ALLOW },
    { code: BPF_RET_K, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | EPERM },
  ];
  if (program.length !== denyAt + 1) throw new Error(`seccomp program layout is off: ${program.length} != ${denyAt + 1}`);
  for (const insn of program) if (insn.jt > 255 || insn.jf > 255 || insn.jt < 0 || insn.jf < 0) throw new Error('seccomp jump out of range');
  return program;
}

function encode(program: Insn[]): Buffer {
  const buf = Buffer.alloc(program.length * 8);
  program.forEach((insn, i) => {
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(insn.jt, i * 8 + 2);
    buf.writeUInt8(insn.jf, i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}

/** Run the filter on a syscall, as the kernel would (for tests): returns 'allow' or 'eperm'. */
export function evaluateSeccomp(program: Buffer, call: { arch: number; nr: number; arg1?: number }): 'allow' | 'eperm' {
  let acc = 0;
  let pc = 0;
  const n = program.length / 8;
  while (pc < n) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === BPF_LD_W_ABS) acc = k === OFFSET_ARCH ? call.arch : k === OFFSET_NR ? call.nr : k === OFFSET_ARG1_LOW ? (call.arg1 ?? 0) >>> 0 : 0;
    else if (code === BPF_JEQ_K) pc += acc >>> 0 === k ? jt : jf;
    else if (code === BPF_JGE_K) pc += acc >>> 0 >= k ? jt : jf;
    else if (code === BPF_RET_K) return k === SECCOMP_RET_ALLOW ? 'allow' : 'eperm';
    else throw new Error(`unknown BPF opcode ${code}`);
    pc++;
  }
  throw new Error('seccomp program fell off its end');
}

export const SECCOMP_ARCH = { x64: ABIS.x64, arm64: ABIS.arm64 };
