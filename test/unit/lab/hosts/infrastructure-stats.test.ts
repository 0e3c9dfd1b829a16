import { describe, expect, it } from 'vitest';
import type { EpisodeRecord } from '../../../../electron/domain/runs';
import { computeStats } from '../../../../electron/lab/runs/stats';

const record = (taskId: string, resolved: boolean, error: EpisodeRecord['error'] = null): EpisodeRecord => ({
  key: `${taskId}@0`,
  taskId,
  attempt: 0,
  category: 'testing',
  difficulty: 'easy',
  resolved,
  reward: resolved ? { dense: 1, fraction: 1, binary: 1 } : null,
  turns: 1,
  stopReason: error ? 'sandbox_error' : 'submitted',
  error,
  tokens: { prompt: 0, completion: 0 },
  costUsd: null,
  durationMs: 1,
  dir: `episodes/${taskId}`,
  finishedAt: '2026-01-01T00:00:00Z',
});

describe('statistics of a run with infrastructure errors', () => {
  it('leave the episodes no host could run out of the rates, and count them', () => {
    const stats = computeStats([
      record('a', true),
      record('b', false),
      record('c', false, { kind: 'infrastructure', message: 'infrastructure: no engine host could run it' }),
    ]);
    expect(stats.tasks).toBe(2);
    expect(stats.episodes).toBe(2);
    expect(stats.resolvedRate).toBe(0.5);
    expect(stats.errors).toEqual({ policy: 0, sandbox: 0, verifier: 0, timeout: 0, infrastructure: 1 });
  });

  it('are unchanged without them', () => {
    expect(computeStats([record('a', true), record('b', false, { kind: 'sandbox', message: 'x' })]).errors).toEqual({
      policy: 0,
      sandbox: 1,
      verifier: 0,
      timeout: 0,
    });
  });
});
