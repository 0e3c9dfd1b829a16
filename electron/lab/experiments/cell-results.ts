/**
 * What an experiment reads back from a finished PPO run folder and its evaluations: the learning curve
 * (metrics.jsonl), the train-inference gap, the dense-reward guard's flags, and eval episodes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EpisodeRecord } from '../../domain/runs';
import { readRun } from '../runs/library';

export type MetricsRow = Record<string, unknown> & { step?: number };

export function readMetrics(runDir: string): MetricsRow[] {
  const file = join(runDir, 'metrics.jsonl');
  if (!existsSync(file)) return [];
  const rows: MetricsRow[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      rows.push(JSON.parse(line) as MetricsRow);
    } catch {
      // a torn last line of a killed run: the rows before it stand
    }
  }
  return rows;
}

/** The series of one metric by step (rows without the metric are skipped). */
export function metricSeries(rows: readonly MetricsRow[], key: string): { x: number; y: number }[] {
  const out: { x: number; y: number }[] = [];
  rows.forEach((r, i) => {
    const v = r[key];
    if (typeof v === 'number' && Number.isFinite(v)) out.push({ x: typeof r.step === 'number' ? r.step : i + 1, y: v });
  });
  return out;
}

/** Mean of a metric over the last `window` rows that have it (null if none). */
export function tailMean(rows: readonly MetricsRow[], key: string, window = 10): number | null {
  const ys = metricSeries(rows, key)
    .slice(-window)
    .map((p) => p.y);
  return ys.length ? ys.reduce((a, b) => a + b, 0) / ys.length : null;
}

/** Assertions the dense-reward guard flagged, from the run's summary (as the PPO stage writes it). */
export function guardFlags(runDir: string): string[] {
  for (const name of ['guard.json', 'summary.json']) {
    const file = join(runDir, name);
    if (!existsSync(file)) continue;
    try {
      const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      // The PPO stage writes `flaggedAssertions: [{taskId, assertion, ...}]`.
      const flagged = (json.flaggedAssertions ?? json.flagged) as unknown;
      if (Array.isArray(flagged)) {
        return flagged.map((f) => {
          if (typeof f === 'string') return f;
          const { taskId, assertion } = f as { taskId?: string; assertion?: string };
          return taskId && assertion ? `${taskId}::${assertion}` : JSON.stringify(f);
        });
      }
    } catch {
      // unreadable: no flags to report from it
    }
  }
  return [];
}

/** Episodes of several seeds' eval runs as one run whose attempt index is the seed's position. */
export function pooledEpisodes(evalDirs: readonly string[]): EpisodeRecord[] {
  return evalDirs.flatMap((dir, seedIndex) =>
    readRun(dir).episodes.map((e) => ({
      ...e,
      attempt: seedIndex * 1000 + e.attempt,
      key: `${e.taskId}@${seedIndex * 1000 + e.attempt}`,
    })),
  );
}

/** Mean and min..max over seeds at each step: the band of a learning curve. */
export function seedBand(
  curves: readonly { x: number; y: number }[][],
): { x: number; y: number; lo: number; hi: number }[] {
  const byStep = new Map<number, number[]>();
  for (const c of curves) for (const p of c) byStep.set(p.x, [...(byStep.get(p.x) ?? []), p.y]);
  return [...byStep.entries()]
    .sort(([a], [b]) => a - b)
    .map(([x, ys]) => ({ x, y: ys.reduce((a, b) => a + b, 0) / ys.length, lo: Math.min(...ys), hi: Math.max(...ys) }));
}
