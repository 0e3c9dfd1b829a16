/**
 * Where a PPO run keeps its rollouts (the Training page opens them token by token):
 *   rollouts/step-NNNNNNN/episodes/<key>/          the episode folder (trajectory.json with the ledger's
 *                                                   samples: ids, masks, sampler log-probs, routing of every
 *                                                   token, the fed record; recording.cast; verifier/)
 *   rollouts/step-NNNNNNN/episodes.jsonl           one line per finished episode (fsync'd as it finishes):
 *                                                   RolloutEpisode (key, task, group, policy version, rewards,
 *                                                   kept or aborted, duration, folder)
 *   rollouts/step-NNNNNNN/samples.jsonl            one line per training sample after scoring: the episode
 *                                                   key and sample index, then per loss position: sampler and
 *                                                   trainer log-probs, values, advantages, returns, TIS weights
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { Reward } from '../../domain/tasks';

export const RolloutEpisode = z.object({
  key: z.string(),
  taskId: z.string(),
  category: z.string(),
  /** The task group (task id): group-relative advantages and normalisation use it. */
  group: z.string(),
  attempt: z.number().int(),
  /** Weight updates of the policy that sampled it. */
  policyVersion: z.number().int(),
  /** The sampling temperature (the trainer scores the tempered policy); absent in older runs: the config's. */
  temperature: z.number().positive().optional(),
  reward: Reward.nullable(),
  resolved: z.boolean(),
  /** Per verifier assertion: passed or not (the dense-reward guard). */
  assertions: z.array(z.object({ name: z.string(), passed: z.boolean() })),
  turns: z.number().int(),
  completionTokens: z.number().int(),
  stopReason: z.string(),
  error: z.string().nullable(),
  /** Cut at the over-sampling deadline: verified, but not trained on. */
  aborted: z.boolean(),
  durationMs: z.number(),
  /** Time in the policy and in the environment (sandbox, verifier). */
  generationMs: z.number(),
  environmentMs: z.number(),
  dir: z.string(),
  /** The engine host that ran its containers (`ppo.hosts`); absent: this machine. */
  host: z.string().optional(),
});
export type RolloutEpisode = z.infer<typeof RolloutEpisode>;

export function stepDir(runDir: string, step: number): string {
  return join(runDir, 'rollouts', `step-${String(step).padStart(7, '0')}`);
}

export const ROLLOUT_FILES = { episodes: 'episodes.jsonl', samples: 'samples.jsonl', episodeDir: 'episodes' } as const;

/** Append-only JSONL with an fsync per line (a kill loses at most the line being written). */
export class JsonlAppender {
  private readonly fd: number;
  constructor(path: string) {
    mkdirSync(join(path, '..'), { recursive: true });
    this.fd = openSync(path, 'a');
  }
  append(value: unknown): void {
    const bytes = Buffer.from(JSON.stringify(value) + '\n');
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done);
    fsyncSync(this.fd);
  }
  close(): void {
    closeSync(this.fd);
  }
}

/** The finished episodes of a step's rollouts (a torn last line is ignored). */
export function readRolloutEpisodes(runDir: string, step: number): RolloutEpisode[] {
  const path = join(stepDir(runDir, step), ROLLOUT_FILES.episodes);
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  if (!text.endsWith('\n')) lines.pop();
  const out = new Map<string, RolloutEpisode>();
  for (const line of lines) {
    if (!line.trim()) continue;
    const parsed = RolloutEpisode.safeParse(JSON.parse(line));
    if (parsed.success) out.set(parsed.data.key, parsed.data);
  }
  return [...out.values()];
}
