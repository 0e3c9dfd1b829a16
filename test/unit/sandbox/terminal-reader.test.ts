/** Reading which sandbox process is blocked on its terminal from /proc/PID/syscall. */
import { describe, expect, it } from 'vitest';
import { containerHostPid } from '../../../native/sandbox/container/host-pid';
import { parseSyscallLine, readsTerminal, terminalReader } from '../../../native/sandbox/terminal-reader';

describe('terminal reader', () => {
  it('parses the call and its first argument, and nothing from a running or unblocked process', () => {
    expect(parseSyscallLine('0 0x0 0x55ab58fc7000 0x18000 0x1000 0x39871 0x0 0x7ffe73d0c3 0x7f\n')).toEqual({
      call: 0,
      firstArg: 0,
    });
    expect(parseSyscallLine('270 0x1 0x7ffd0fd44ae0 0x0 0x0 0x0 0x0 0x7ffd 0x7f')).toEqual({ call: 270, firstArg: 1 });
    expect(parseSyscallLine('running\n')).toBeNull();
    expect(parseSyscallLine('-1 0x7ffd 0x7f\n')).toBeNull();
    expect(parseSyscallLine('')).toBeNull();
  });

  it('finds no reader on an architecture it has no call numbers for, or among processes that are gone', () => {
    expect(terminalReader([process.pid], 'mips')).toBeNull();
    expect(readsTerminal(process.pid, 'mips')).toBe(false);
    expect(terminalReader([2 ** 22 + 12345])).toBeNull();
  });
});

describe('a container as host processes', () => {
  it("takes the engine's pid only when that process's cgroup names the container", () => {
    const id = 'a'.repeat(64);
    expect(containerHostPid(process.pid, id)).toBeNull(); // this process is no container's
    expect(containerHostPid(0, id)).toBeNull();
    expect(containerHostPid(process.pid, 'not-an-id')).toBeNull();
    expect(containerHostPid('12', id)).toBeNull();
  });
});
