/**
 * The sandbox's classic-BPF seccomp filter, handed to bwrap with `--seccomp FD`. Reference: Docker's default
 * profile (moby profiles/seccomp/default.json) for a container without added capabilities. Terminal-Bench
 * tasks are written for that profile, and users know it. What it refuses, this filter refuses:
 *   - with EPERM (Docker's default errno), the calls Docker allows only with a capability the sandbox never has
 *     (mount family, namespaces, modules, kexec, reboot, swap, clock setting, quotas, accounting, syslog,
 *     NUMA policy, kcmp/pidfd_getfd, open_by_handle_at, fanotify_init, iopl/ioperm, host/domain names), and
 *     those it does not list at all: the kernel keyring (not fully namespaced), bpf, perf_event_open,
 *     userfaultfd and io_uring (the kernel interfaces behind most container escapes of recent years; Docker
 *     dropped io_uring in 2023), and obsolete calls (uselib, ustat, sysfs, _sysctl, nfsservctl, vm86);
 *   - clone with any namespace flag (EPERM), and clone3 with ENOSYS, as Docker does: clone3's flags sit in
 *     memory a filter cannot read, and ENOSYS makes the C library fall back to clone;
 *   - personality other than the values Docker allows (query, PER_LINUX, PER_LINUX32, UNAME26);
 *   - socket(AF_VSOCK) (the hypervisor's socket family);
 *   - ioctl TIOCSTI (push characters into a terminal's input queue) and TIOCLINUX (console tricks): the
 *     classic escape from a shared terminal; Flatpak refuses them the same way (Docker has no shared terminal);
 *   - every x32-ABI syscall on x86_64 (an alternate syscall table a filter could otherwise miss).
 * ptrace, process_vm_readv and process_vm_writev stay allowed, as in Docker on kernels since 4.8: gdb and strace
 * tasks need them, and the sandbox's own pid namespace (bwrap --unshare-pid) means the only processes a tracer
 * can see, hence attach to, are the sandbox's own.
 * The 32-bit compat ABI (i386 on x86_64, arm on aarch64) gets the same checks with its own numbers.
 * Written by hand because no maintained npm package compiles seccomp filters without libseccomp; the unit
 * test runs the program on an interpreter of its own, the red-team suite against the kernel.
 */
import { AARCH64, ARM_EABI, I386, X86_64, type SyscallTable } from './syscall-numbers';

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_JSET_K = 0x45;
const BPF_JA = 0x05;
const BPF_RET_K = 0x06;

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
export const EPERM = 1;
export const ENOSYS = 38;

/** Offsets into struct seccomp_data: nr, arch, then args[6] as u64 from 16 (low 32 bits first: little-endian). */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;
const OFFSET_ARG1_LOW = 24;

export const TIOCSTI = 0x5412;
export const TIOCLINUX = 0x541c;
/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET: Docker's mask (2114060288). */
export const CLONE_NAMESPACE_FLAGS = 0x7e020000;
/** personality() values Docker allows: PER_LINUX, PER_LINUX32, UNAME26, UNAME26|PER_LINUX32, and the query. */
export const ALLOWED_PERSONALITIES = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];
export const AF_VSOCK = 40;

interface Abi {
  arch: number;
  table: SyscallTable;
  /** Syscall numbers at or above this are another ABI (x32): refused. */
  refuseFrom?: number;
}

const ABIS = {
  x64: {
    native: { arch: 0xc000003e, table: X86_64, refuseFrom: 0x40000000 },
    compat: { arch: 0x40000003, table: I386 },
  },
  arm64: { native: { arch: 0xc00000b7, table: AARCH64 }, compat: { arch: 0x40000028, table: ARM_EABI } },
} satisfies Record<string, { native: Abi; compat: Abi }>;

type Label = 'allow' | 'eperm' | 'enosys' | 'ioctl' | 'clone' | 'personality' | 'socket' | 'native' | 'compat';
type Target = Label | 'next';
interface Insn {
  code: number;
  k: number;
  jt?: Target;
  jf?: Target;
}

/** The filter for this machine's architecture, or null where we have no syscall table (then bwrap runs without one). */
export function seccompProgram(arch: string = process.arch): Buffer | null {
  const abis = (ABIS as Record<string, { native: Abi; compat: Abi } | undefined>)[arch];
  if (!abis) return null;
  return encode(assemble(buildProgram(abis.native, abis.compat)));
}

function abiBlock(abi: Abi): Insn[] {
  const t = abi.table;
  const jumpIf = (nr: number, to: Label): Insn => ({ code: BPF_JEQ_K, k: nr, jt: to, jf: 'next' });
  return [
    { code: BPF_LD_W_ABS, k: OFFSET_NR },
    ...(abi.refuseFrom !== undefined
      ? [{ code: BPF_JGE_K, k: abi.refuseFrom, jt: 'eperm', jf: 'next' } satisfies Insn]
      : []),
    jumpIf(t.ioctl, 'ioctl'),
    jumpIf(t.clone, 'clone'),
    jumpIf(t.personality, 'personality'),
    jumpIf(t.socket, 'socket'),
    jumpIf(t.clone3, 'enosys'),
    ...Object.values(t.refused).map((nr) => jumpIf(nr, 'eperm')),
    { code: BPF_JA, k: 0, jt: 'allow' },
  ];
}

/** The program with symbolic jumps; labels mark the instruction that follows them. */
function buildProgram(native: Abi, compat: Abi): (Insn | { label: Label })[] {
  return [
    { code: BPF_LD_W_ABS, k: OFFSET_ARCH },
    { code: BPF_JEQ_K, k: native.arch, jt: 'native', jf: 'next' },
    { code: BPF_JEQ_K, k: compat.arch, jt: 'compat', jf: 'eperm' },
    { label: 'native' },
    ...abiBlock(native),
    { label: 'compat' },
    ...abiBlock(compat),
    { label: 'ioctl' },
    { code: BPF_LD_W_ABS, k: OFFSET_ARG1_LOW },
    { code: BPF_JEQ_K, k: TIOCSTI, jt: 'eperm', jf: 'next' },
    { code: BPF_JEQ_K, k: TIOCLINUX, jt: 'eperm', jf: 'allow' },
    { label: 'clone' },
    { code: BPF_LD_W_ABS, k: OFFSET_ARG0_LOW },
    { code: BPF_JSET_K, k: CLONE_NAMESPACE_FLAGS, jt: 'eperm', jf: 'allow' },
    { label: 'personality' },
    { code: BPF_LD_W_ABS, k: OFFSET_ARG0_LOW },
    ...ALLOWED_PERSONALITIES.map((p): Insn => ({ code: BPF_JEQ_K, k: p, jt: 'allow', jf: 'next' })),
    { code: BPF_JA, k: 0, jt: 'eperm' },
    { label: 'socket' },
    { code: BPF_LD_W_ABS, k: OFFSET_ARG0_LOW },
    { code: BPF_JEQ_K, k: AF_VSOCK, jt: 'eperm', jf: 'allow' },
    { label: 'allow' },
    { code: BPF_RET_K, k: SECCOMP_RET_ALLOW },
    { label: 'eperm' },
    { code: BPF_RET_K, k: SECCOMP_RET_ERRNO | EPERM },
    { label: 'enosys' },
    { code: BPF_RET_K, k: SECCOMP_RET_ERRNO | ENOSYS },
  ];
}

interface Resolved {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** Resolve labels to relative forward jumps (classic BPF: conditional jumps reach at most 255 ahead). */
function assemble(program: (Insn | { label: Label })[]): Resolved[] {
  const at = new Map<Label, number>();
  const insns: Insn[] = [];
  for (const item of program) {
    if ('label' in item) at.set(item.label, insns.length);
    else insns.push(item);
  }
  return insns.map((insn, i) => {
    const rel = (target: Target | undefined): number => {
      if (target === undefined || target === 'next') return 0;
      const to = at.get(target);
      if (to === undefined) throw new Error(`seccomp: no label ${target}`);
      return to - i - 1;
    };
    if (insn.code === BPF_JA) {
      const k = rel(insn.jt);
      if (k < 0) throw new Error('seccomp: backward jump');
      return { code: insn.code, jt: 0, jf: 0, k };
    }
    const jt = rel(insn.jt);
    const jf = rel(insn.jf);
    if (jt < 0 || jf < 0 || jt > 255 || jf > 255) throw new Error(`seccomp: jump out of range at ${i}`);
    return { code: insn.code, jt, jf, k: insn.k };
  });
}

function encode(program: Resolved[]): Buffer {
  const buf = Buffer.alloc(program.length * 8);
  program.forEach((insn, i) => {
    buf.writeUInt16LE(insn.code, i * 8);
    buf.writeUInt8(insn.jt, i * 8 + 2);
    buf.writeUInt8(insn.jf, i * 8 + 3);
    buf.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return buf;
}

export type SeccompVerdict = 'allow' | 'eperm' | 'enosys';

/** Run the filter on a syscall, as the kernel would (for tests). */
export function evaluateSeccomp(
  program: Buffer,
  call: { arch: number; nr: number; arg0?: number; arg1?: number },
): SeccompVerdict {
  let acc = 0;
  let pc = 0;
  const n = program.length / 8;
  while (pc < n) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === BPF_LD_W_ABS) {
      const words: Record<number, number> = {
        [OFFSET_NR]: call.nr,
        [OFFSET_ARCH]: call.arch,
        [OFFSET_ARG0_LOW]: call.arg0 ?? 0,
        [OFFSET_ARG1_LOW]: call.arg1 ?? 0,
      };
      acc = (words[k] ?? 0) >>> 0;
    } else if (code === BPF_JEQ_K) pc += acc === k ? jt : jf;
    else if (code === BPF_JGE_K) pc += acc >= k ? jt : jf;
    else if (code === BPF_JSET_K) pc += (acc & k) !== 0 ? jt : jf;
    else if (code === BPF_JA) pc += k;
    else if (code === BPF_RET_K) {
      if (k === SECCOMP_RET_ALLOW) return 'allow';
      if (k === (SECCOMP_RET_ERRNO | EPERM)) return 'eperm';
      if (k === (SECCOMP_RET_ERRNO | ENOSYS)) return 'enosys';
      throw new Error(`unexpected return ${k.toString(16)}`);
    } else throw new Error(`unknown BPF opcode ${code}`);
    pc++;
  }
  throw new Error('seccomp program fell off its end');
}

export const SECCOMP_ARCH = ABIS;
