/**
 * The Training page's charted runs pooled over seeds: runs whose stage and settings differ only in seed are
 * one line, their mean at each step over a band from the smallest to the largest run (seed-groups.ts). The
 * smoothed values are pooled (at smoothing 0, the logged ones), step by step: a run that stopped earlier
 * leaves the later steps. On the wall-time and token axes a pooled point sits at the runs' mean x there.
 */
import { bandOf, type Curve } from '../../../../electron/domain/seed-groups';
import type { SeriesPoints } from '../../../../electron/domain/training-metrics';
import type { TrainingRunSummary } from '../../../../electron/domain/training-view';

/**
 * The charted runs in groups of the same settings (seeds aside), in charted order (a group where its first
 * run is); a run whose settings are unknown is a group of its own.
 */
export function seedGroups(charted: readonly string[], runs: readonly TrainingRunSummary[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const id of charted) {
    const key = runs.find((r) => r.id === id)?.settingsKey;
    const k = key === undefined ? `run:${id}` : `settings:${key}`;
    const g = groups.get(k);
    if (g) g.push(id);
    else groups.set(k, [id]);
  }
  return [...groups.values()];
}

/** The members' series (smoothed) pooled step by step: the mean as the points, with the band's edges and counts. */
export function poolSeries(members: readonly SeriesPoints[]): {
  points: SeriesPoints;
  lo: number[];
  hi: number[];
  n: number[];
} {
  const along = (y: (p: SeriesPoints) => number[]): Curve[] => members.map((p) => ({ x: p.step, y: y(p) }));
  const values = bandOf(along((p) => p.ema));
  const meanAt = (y: (p: SeriesPoints) => number[]) => new Map(bandOf(along(y)).map((b) => [b.x, b.mean]));
  const wall = meanAt((p) => p.wall);
  const tokens = meanAt((p) => p.tokens);
  const mean = values.map((b) => b.mean);
  return {
    points: {
      step: values.map((b) => b.x),
      wall: values.map((b) => wall.get(b.x) ?? 0),
      tokens: values.map((b) => tokens.get(b.x) ?? 0),
      raw: mean,
      ema: mean,
    },
    lo: values.map((b) => b.min),
    hi: values.map((b) => b.max),
    n: values.map((b) => b.n),
  };
}
