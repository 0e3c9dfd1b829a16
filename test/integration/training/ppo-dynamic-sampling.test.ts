/**
 * Dynamic sampling (`ppo.dynamic_max_tasks`) in a real PPO run: two tasks, one whose group of 8 disagrees
 * (the tiny policy runs `touch yes.txt` or `touch no.txt` about equally often; only yes.txt is rewarded) and
 * one that every episode passes (a flat group: no signal). One task a step, at most two tried: a step that
 * draws the flat task first must go on to the other, and only groups that disagree are trained on.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { createProtocol } from '../../../electron/agent/protocol';
import { compactHermesPrompt } from '../../../electron/agent/protocol/hermes';
import { sampleTasks } from '../../../electron/lab/ppo/tasks';
import { loadTaskSource } from '../../../electron/lab/tasks';
import {
  completionSequence,
  firstTurnPrompt,
  supervisedWarmStart,
  toolCallIds,
  writeChoiceCheckpoint,
} from '../../helpers/learning-check';
import { writeSuite } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

const STEPS = 4;
const SEED = 1;
const INSTRUCTION = 'Create one empty file.';
const FLAT_INSTRUCTION = 'Say anything.';

interface Episode {
  key: string;
  taskId: string;
  reward: { dense: number } | null;
  aborted: boolean;
}

const jsonl = <T>(path: string): T[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as T)
    : [];

describe('PPO dynamic sampling', () => {
  const tmp = makeTempDir('t1lab-ppo-dynamic-');
  const env = { T1LAB_HOME: join(tmp.path, 'home') };
  const suite = join(tmp.path, 'suite');
  const sft = join(tmp.path, 'sft');
  let maxTokens = 0;

  beforeAll(async () => {
    const calls = ['touch yes.txt', 'touch no.txt'].map(
      (command) => createProtocol('hermes').writeAction({ tool: 'bash', command }, 'call').text,
    );
    const init = writeChoiceCheckpoint(join(tmp.path, 'init'), [
      compactHermesPrompt({ maxTurns: 1, timeoutSec: 60, toolsInTemplate: false, compact: true }),
      INSTRUCTION,
      FLAT_INSTRUCTION,
      ...calls,
    ]);
    const pickYes = {
      id: 'pick-yes',
      instruction: INSTRUCTION,
      assertions: { 'yes.txt exists': 'test -f yes.txt' },
      solution: 'touch yes.txt',
    };
    writeSuite(suite, [
      pickYes,
      {
        id: 'always-passes',
        instruction: FLAT_INSTRUCTION,
        assertions: { 'the sandbox exists': 'true' },
        solution: 'true',
      },
    ]);
    // The warm start learns pick-yes's first-turn prompt (a suite of that task alone gives it).
    const prompt = await firstTurnPrompt(init, writeSuite(join(tmp.path, 'suite-yes'), [pickYes]), 1, tmp.path);
    const good = toolCallIds(init, 'touch yes.txt');
    const bad = toolCallIds(init, 'touch no.txt');
    maxTokens = Math.max(good.length, bad.length) + 4;
    await supervisedWarmStart(init, sft, [completionSequence(prompt, good), completionSequence(prompt, bad)], {
      steps: 150,
      lr: 2e-2,
      decay: true,
    });
  }, 120_000);
  afterAll(() => (process.env.KEEP_TMP ? console.log('kept', tmp.path) : tmp.remove()));

  it('draws past flat groups and trains only on groups that disagree', async () => {
    const config = join(tmp.path, 'ppo.toml');
    writeFileSync(
      config,
      [
        'stage = "ppo"',
        `seed = ${SEED}`,
        `[model]\ncheckpoint = ${JSON.stringify(sft)}`,
        `[data]\npath = ${JSON.stringify(suite)}`,
        `[train]\nsteps = ${STEPS}\nmicro_batch_size = 8\nprovider = "cpu"\nthreads = 1`,
        // A tiny rate: the policy stays near 50/50, so pick-yes keeps disagreeing; learning is ppo-learns' job.
        '[optimizer]\nlr = 1e-6',
        '[schedule]\nkind = "constant"\nwarmup_steps = 0',
        `[checkpoint]\nevery = ${STEPS}`,
        `[ppo]\nadvantage = "group"\ntasks_per_step = 1\ngroup_size = 8\ndynamic_max_tasks = 2\nconcurrency = 4\nmax_turns = 1\nmax_tokens = ${maxTokens}\nepochs = 1\nminibatches = 1\nasync = false\nmeasure_free_gap = false`,
      ].join('\n'),
    );
    const run = await runT1lab(['train', 'ppo', '--config', config, '--out', join(tmp.path, 'run'), '--json'], {
      env,
      timeoutMs: 240_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const result = parseJsonOutput<{ runDir: string }>(run);
    const runDir = result.runDir ?? join(tmp.path, 'run');
    const rows = jsonl<Record<string, number>>(join(runDir, 'metrics.jsonl'));
    expect(rows).toHaveLength(STEPS);
    const tasks = (await loadTaskSource(suite)).tasks;
    let wentOn = 0;
    let trainedSteps = 0;
    for (const row of rows) {
      const dir = join(runDir, 'rollouts', `step-${String(row.step).padStart(7, '0')}`);
      const episodes = jsonl<Episode>(join(dir, 'episodes.jsonl')).filter((e) => !e.aborted);
      const byTask = new Map<string, number[]>();
      for (const e of episodes) byTask.set(e.taskId, [...(byTask.get(e.taskId) ?? []), e.reward?.dense ?? 0]);
      const mixed = [...byTask].filter(([, rs]) => rs.some((r) => r !== rs[0])).map(([id]) => id);
      // always-passes is flat in every step: every episode passes its one assertion.
      expect(byTask.get('always-passes')?.every((r) => r === 1) ?? true).toBe(true);
      // The step's candidates in order: it stops at the first group that disagrees.
      const order = sampleTasks(tasks, 2, 'uniform', SEED, row.step!).map((t) => t.id);
      const firstMixed = mixed.includes(order[0]!);
      expect([...byTask.keys()].sort(), `step ${row.step}`).toEqual((firstMixed ? [order[0]!] : order).sort());
      if (!firstMixed) wentOn++;
      expect(row.dynamic_tasks).toBe(byTask.size);
      expect(row.dynamic_mixed_groups).toBe(mixed.length);
      // Trained: exactly the episodes of groups that disagree.
      const trained = new Set(jsonl<{ episode: string }>(join(dir, 'samples.jsonl')).map((s) => s.episode));
      const expected = new Set(episodes.filter((e) => mixed.includes(e.taskId)).map((e) => e.key));
      expect([...trained].sort(), `step ${row.step}`).toEqual([...expected].sort());
      expect(row.episodes_trained).toBe(expected.size);
      if (expected.size > 0) trainedSteps++;
      expect(row.episodes).toBe(episodes.length);
    }
    // The seed draws the flat task first in some step: that step went on to the second task.
    expect(wentOn).toBeGreaterThan(0);
    // And pick-yes disagreed (it is about 50/50) in most steps: the check is not vacuous.
    expect(trainedSteps).toBeGreaterThanOrEqual(STEPS - 1);
  }, 300_000);
});
