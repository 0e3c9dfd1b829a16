import { describe, expect, it } from 'vitest';
import { isNamedKey, keyBytes } from '../../../native/pty/keys';

describe('named keys', () => {
  it('maps the keys the harness needs', () => {
    expect(keyBytes('Enter')).toBe('\r');
    expect(keyBytes('C-c')).toBe('\x03');
    expect(keyBytes('C-d')).toBe('\x04');
    expect(keyBytes('C-z')).toBe('\x1a');
    expect(keyBytes('Tab')).toBe('\t');
    expect(keyBytes('Escape')).toBe('\x1b');
    expect(keyBytes('Backspace')).toBe('\x7f');
    expect(keyBytes('M-x')).toBe('\x1bx');
  });
  it('follows application cursor mode for arrows', () => {
    expect(keyBytes('Up')).toBe('\x1b[A');
    expect(keyBytes('Up', true)).toBe('\x1bOA');
    expect(keyBytes('Left', true)).toBe('\x1bOD');
  });
  it('rejects unknown keys by name', () => {
    expect(() => keyBytes('Hyper' as never)).toThrow(/unknown key 'Hyper'/);
    expect(isNamedKey('C-a')).toBe(true);
    expect(isNamedKey('nope')).toBe(false);
  });
});
