/** The expert heatmap's numbers: gate weight summed per layer and expert, and a token's top expert per layer. */
import { describe, expect, test } from 'vitest';
import { gateWeights, topExpert } from '../../../renderer/src/components/expert-routing';

describe('gateWeights', () => {
  test("sums each token's gate weight per layer and expert; a token without gates counts 1 per chosen expert", () => {
    const tokens = [
      {
        experts: [
          [0, 2],
          [1, 3],
        ],
        gates: [
          [0.25, 0.75],
          [0.5, 0.5],
        ],
      },
      {
        experts: [
          [2, 1],
          [3, 0],
        ],
        gates: null,
      },
    ];
    expect(gateWeights(tokens, 4)).toEqual([
      [0.25, 1, 1.75, 0],
      [1, 0.5, 0, 1.5],
    ]);
  });

  test('no tokens: no layers', () => {
    expect(gateWeights([], 4)).toEqual([]);
  });
});

describe('topExpert', () => {
  test('the expert with the largest gate in the layer; the first chosen on a tie or without gates', () => {
    expect(topExpert({ experts: [[4, 7, 1]], gates: [[0.2, 0.5, 0.3]] }, 0)).toBe(7);
    expect(topExpert({ experts: [[4, 7]], gates: [[0.5, 0.5]] }, 0)).toBe(4);
    expect(topExpert({ experts: [[4, 7]], gates: null }, 0)).toBe(4);
    expect(topExpert({ experts: null, gates: null }, 0)).toBe(0);
  });
});
