import { describe, expect, test } from 'vitest';
import { decisiveLimit, exitStatus } from '../../../native/sandbox/bubblewrap';

describe("exitStatus: the command's exit code or signal as bwrap reports them", () => {
  test('128+N is death by signal N; other codes and signals pass through', () => {
    expect(exitStatus({ code: 137, signal: null })).toEqual({ exitCode: null, signal: 'SIGKILL' });
    expect(exitStatus({ code: 152, signal: null })).toEqual({ exitCode: null, signal: 'SIGXCPU' });
    expect(exitStatus({ code: 3, signal: null })).toEqual({ exitCode: 3, signal: null });
    expect(exitStatus({ code: null, signal: 'SIGTERM' })).toEqual({ exitCode: null, signal: 'SIGTERM' });
    expect(exitStatus({ code: 128 + 200, signal: null })).toEqual({ exitCode: 328, signal: null }); // no such signal
  });
});

describe('decisiveLimit: the limit that decided a run', () => {
  test('the one that stopped it comes first', () => {
    expect(decisiveLimit('wallSeconds', 'SIGXCPU', ['cpuSeconds', 'wallSeconds'])).toBe('wallSeconds');
  });

  test('else the rlimit its signal names, else the first one hit, else none', () => {
    expect(decisiveLimit(null, 'SIGXCPU', ['output'])).toBe('cpuSeconds');
    expect(decisiveLimit(null, 'SIGXFSZ', ['output', 'workspaceMb'])).toBe('workspaceMb');
    expect(decisiveLimit(null, 'SIGXFSZ', ['output'])).toBe('output');
    expect(decisiveLimit(null, null, ['memoryMb', 'output'])).toBe('memoryMb');
    expect(decisiveLimit(null, 'SIGKILL', [])).toBeNull();
  });
});
