/**
 * The Training page reads a PPO step in the PPO stage's own layout: episodes.jsonl, the episode folder's
 * trajectory.json (ledger samples) and samples.jsonl (graph position p scores token p + 1).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { TRAJECTORY_SCHEMA } from '../../../electron/domain/trajectory';
import { readRollout, readRolloutStep, listRolloutSteps } from '../../../electron/lab/training/view-rollouts';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir();
afterAll(() => tmp.remove());

describe('a PPO step in the PPO stage layout', () => {
  const run = join(tmp.path, 'run');
  const step = join(run, 'rollouts', 'step-0000003');
  const episodeDir = join(step, 'episodes', 'hello@0');
  mkdirSync(episodeDir, { recursive: true });
  writeFileSync(join(run, 'run.json'), JSON.stringify({ stage: 'ppo' }));
  writeFileSync(
    join(step, 'episodes.jsonl'),
    `${JSON.stringify({ key: 'hello@0', taskId: 'hello', category: 'files', group: 'hello', attempt: 0, policyVersion: 2, reward: { dense: 2, fraction: 1, binary: 1 }, resolved: true, assertions: [], turns: 1, completionTokens: 3, stopReason: 'submitted', error: null, aborted: false, durationMs: 5, generationMs: 1, environmentMs: 4, dir: 'episodes/hello@0' })}\n`,
  );
  const sample = {
    ids: [10, 11, 12, 13, 14],
    mask: [0, 0, 1, 1, 1],
    logprobs: [null, null, -0.5, -1.5, -0.1],
    segments: [
      { kind: 'prompt', start: 0, length: 2 },
      { kind: 'sampled', start: 2, length: 3 },
    ],
    routing: [[[0, 1]], [[1, 2]], [[2, 3]], [[3, 0]], [[0, 2]]],
  };
  writeFileSync(
    join(episodeDir, 'trajectory.json'),
    JSON.stringify({
      schema: TRAJECTORY_SCHEMA,
      id: 't',
      task: { id: 'hello', category: 'files', difficulty: 'easy' },
      policy: { id: 'onnx', protocol: 'hermes', model: null },
      startedAt: '',
      endedAt: '',
      durationMs: 1,
      system: '',
      instruction: '',
      turns: [],
      stopReason: 'submitted',
      error: null,
      contextEvents: [],
      ledger: { samples: [sample], counters: { clean: 1, repair: 0, fork: 0, maskedSampled: 0, lossDrift: 0 } },
      verifier: null,
      reward: null,
      resolved: true,
      tokens: { prompt: 2, completion: 3 },
      costUsd: null,
    }),
  );
  // Position p scores token p + 1: arrays of length T - 1.
  writeFileSync(
    join(step, 'samples.jsonl'),
    `${JSON.stringify({ episode: 'hello@0', sample: 0, lossMask: [0, 1, 1, 1], values: [0, 0.5, 0.6, 0.7], advantages: [0, 1.5, 1.4, 1.3], tisWeights: [1, 0.9, 1.1, 1] })}\n`,
  );

  test('lists the step and its episodes (completionTokens as tokens)', () => {
    expect(listRolloutSteps(run)).toEqual([3]);
    expect(readRolloutStep(run, 3).episodes).toEqual([
      {
        key: 'hello@0',
        taskId: 'hello',
        category: 'files',
        reward: 2,
        rewardBinary: 1,
        resolved: true,
        turns: 1,
        tokens: 3,
        aborted: false,
      },
    ]);
  });

  test('aligns the per-position values with the tokens they score; tokens outside the loss get none', () => {
    const view = readRollout('r', run, 3, 'hello@0');
    expect(view.tokens.map((t) => t.mask)).toEqual([0, 0, 1, 1, 1]);
    expect(view.tokens.map((t) => t.advantage)).toEqual([null, null, 1.5, 1.4, 1.3]);
    expect(view.tokens.map((t) => t.value)).toEqual([null, null, 0.5, 0.6, 0.7]);
    expect(view.tokens.map((t) => t.tisWeight)).toEqual([null, null, 0.9, 1.1, 1]);
    expect(view.tokens[2]).toMatchObject({ kind: 'sampled', logprob: -0.5, experts: [[2, 3]], text: '⟨12⟩' });
    expect(view.turnStarts).toEqual([2]);
    expect(view.numExperts).toBe(4);
  });
});
