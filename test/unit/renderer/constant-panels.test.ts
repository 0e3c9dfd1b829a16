/** Panels hidden by default: those whose every line holds one value, the same across overlaid runs. */
import { describe, expect, test } from 'vitest';
import { isConstantPanel } from '../../../renderer/src/components/training/panels';

describe('constant panels', () => {
  test('one value throughout, in every line, is constant', () => {
    expect(isConstantPanel([[0, 0, 0]])).toBe(true);
    expect(isConstantPanel([[1e-4, 1e-4], [1e-4]])).toBe(true);
    expect(isConstantPanel([[Number.NaN, 2, 2]])).toBe(true);
  });
  test('a value that moves, or overlaid runs that differ, is not', () => {
    expect(isConstantPanel([[0, 0, 1e-9]])).toBe(false);
    expect(
      isConstantPanel([
        [1e-4, 1e-4],
        [3e-4, 3e-4],
      ]),
    ).toBe(false);
  });
  test('a panel with no line is not hidden', () => {
    expect(isConstantPanel([])).toBe(false);
  });
});
