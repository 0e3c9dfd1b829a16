import { describe, expect, it } from 'vitest';
import { SandboxLimitsSchema, TerminalOpenInput } from '../../../electron/domain/terminal';
import { defaultLimits, LIMIT_RANGES } from '../../../native/sandbox/index';

describe('terminal schemas', () => {
  it('use the same limit ranges as the sandbox', () => {
    for (const [name, range] of Object.entries(LIMIT_RANGES)) {
      const ok = (v: number) => SandboxLimitsSchema.safeParse({ ...defaultLimits(), [name]: v }).success;
      expect(ok(range.min), `${name} min`).toBe(true);
      expect(ok(range.max), `${name} max`).toBe(true);
      expect(ok(range.min - 1), `${name} below`).toBe(false);
      expect(ok(range.max + 1), `${name} above`).toBe(false);
    }
    expect(Object.keys(SandboxLimitsSchema.shape).sort()).toEqual(Object.keys(LIMIT_RANGES).sort());
  });
  it('fills terminal defaults', () => {
    expect(TerminalOpenInput.parse({})).toEqual({ net: false, limits: {}, cols: 160, rows: 40, record: false });
  });
});
