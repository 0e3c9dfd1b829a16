/** Run folders written through the real RunStore, for tests of what reads runs (compare, power, reports). */
import { join } from 'node:path';
import { RUN_SCHEMA, type EpisodeRecord, type RunManifest } from '../../electron/domain/runs';
import { RunStore } from '../../electron/lab/runs/store';

export interface FixtureOutcome {
  task: string;
  category?: string;
  /** One entry per attempt. */
  resolved: boolean[];
  /** Passing assertions per attempt (default 3 when resolved, else 1; of 3). */
  dense?: number[];
}

export interface FixtureRunOptions {
  /** The policy spec (default `replay:fixture`); `onnx:…/training/RUN/checkpoints/step-N` makes a checkpoint eval. */
  policy?: string;
  suite?: string;
  createdAt?: string;
  /** What the run decoded with (default: none recorded, as runs made before greedy was the default). */
  policySettings?: RunManifest['config']['policySettings'];
}

export async function writeRunFolder(
  root: string,
  id: string,
  outcomes: readonly FixtureOutcome[],
  options: FixtureRunOptions = {},
): Promise<string> {
  const attempts = Math.max(...outcomes.map((o) => o.resolved.length));
  const manifest: RunManifest = {
    schema: RUN_SCHEMA,
    id,
    createdAt: options.createdAt ?? '2026-12-01T00:00:00Z',
    config: {
      kind: 'eval',
      suite: options.suite ?? '/suite',
      policy: options.policy ?? 'replay:fixture',
      policySettings: options.policySettings ?? {},
      harness: { maxTurns: 300, contextStrategy: 'drop-oldest', observationChars: 10_000 },
      attempts,
      concurrency: 1,
      episodeDeadlineSec: null,
      seed: 1,
      tasks: outcomes.map((o) => ({ id: o.task, category: o.category ?? 'debugging', difficulty: 'medium' })),
    },
    code: { version: '0.1.0', commit: null },
    host: { platform: 'linux-x64', cores: 2, node: '20' },
  };
  const dir = join(root, id);
  const store = RunStore.create(dir, manifest);
  for (const o of outcomes) {
    for (const [attempt, resolved] of o.resolved.entries()) {
      const record: EpisodeRecord = {
        key: `${o.task}@${attempt}`,
        taskId: o.task,
        attempt,
        category: o.category ?? 'debugging',
        difficulty: 'medium',
        resolved,
        reward: {
          dense: o.dense?.[attempt] ?? (resolved ? 3 : 1),
          fraction: (o.dense?.[attempt] ?? (resolved ? 3 : 1)) / 3,
          binary: resolved ? 1 : 0,
        },
        turns: 2,
        stopReason: 'submitted',
        error: null,
        tokens: { prompt: 0, completion: 0 },
        costUsd: null,
        durationMs: 10,
        dir: `episodes/${o.task}/${attempt}`,
        finishedAt: '2026-12-01T00:00:01Z',
      };
      await store.append(record);
    }
  }
  await store.close();
  return dir;
}
