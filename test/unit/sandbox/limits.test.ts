import { describe, expect, it } from 'vitest';
import { defaultLimits, describeLimit, validateLimits } from '../../../native/sandbox/limits';
import { SandboxError } from '../../../native/sandbox/errors';

describe('limits', () => {
  it('gives fresh defaults with overrides applied', () => {
    const a = defaultLimits({ memoryMb: 512 });
    expect(a.memoryMb).toBe(512);
    a.processes = 9;
    expect(defaultLimits().processes).not.toBe(9);
  });
  it('ignores undefined overrides', () => {
    expect(defaultLimits({ memoryMb: undefined }).memoryMb).toBe(defaultLimits().memoryMb);
  });
  it('refuses out-of-range and non-integer values, naming the field and value', () => {
    expect(() => defaultLimits({ memoryMb: 1 })).toThrow(/limits\.memoryMb: 1 is not an integer between 32/);
    expect(() => defaultLimits({ processes: 2.5 })).toThrow(SandboxError);
    expect(() => validateLimits({ ...defaultLimits(), wallSeconds: -1 })).toThrow(/wallSeconds/);
  });
  it('describes a limit in words', () => {
    expect(describeLimit('memoryMb', defaultLimits({ memoryMb: 300 }))).toBe('memory (300 MiB)');
    expect(describeLimit('output')).toBe('output cap');
  });
});
