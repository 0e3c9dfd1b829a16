import { describe, expect, test } from 'vitest';
import { arrangePanels, nearestRolloutStep, xExtentOf } from '../../../renderer/src/components/training/panel-layout';
import type { SeriesPoints } from '../../../electron/domain/training-metrics';
import type { Panel } from '../../../renderer/src/components/training/panels';

const points = (xs: number[]): SeriesPoints => ({
  step: xs,
  wall: xs.map((x) => x * 10),
  tokens: xs.map((x) => x * 100),
  raw: xs,
  ema: xs,
});
const panel = (id: string): Panel => ({ id, lines: [{ key: id, label: id }], family: false });

describe("the Training page's panel layout", () => {
  test('xExtentOf spans every run and metric on the chosen axis; nothing logged is null', () => {
    const runs: { series: Record<string, SeriesPoints> }[] = [
      { series: { loss: points([2, 5]), lr: points([]) } },
      { series: { loss: points([1, 3]) } },
    ];
    expect(xExtentOf(runs, 'step')).toEqual({ min: 1, max: 5 });
    expect(xExtentOf(runs, 'wall')).toEqual({ min: 10, max: 50 });
    expect(xExtentOf([{ series: {} }], 'step')).toBeNull();
  });

  test('arrangePanels puts pins first in pin order, groups the rest, and leaves out hidden groups', () => {
    const panels = ['zz_custom', 'pg_loss', 'reward_dense', 'lr'].map(panel);
    const all = arrangePanels(panels, ['lr', 'missing'], []);
    expect(all.pinnedPanels.map((p) => p.id)).toEqual(['lr']);
    const placed = all.groups.flatMap((g) => g.panels.map((p) => p.id));
    expect(placed.sort()).toEqual(['pg_loss', 'reward_dense', 'zz_custom']);
    expect(all.groups.at(-1)?.group.id).toBe('other');
    const hidden = arrangePanels(panels, [], ['other']);
    expect(hidden.groups.some((g) => g.group.id === 'other')).toBe(false);
  });

  test('nearestRolloutStep picks the kept step nearest to a clicked one (the earlier on a tie)', () => {
    expect(nearestRolloutStep([0, 10, 20], 14)).toBe(10);
    expect(nearestRolloutStep([0, 10, 20], 16)).toBe(20);
    expect(nearestRolloutStep([0, 10, 20], 15)).toBe(10);
  });
});
