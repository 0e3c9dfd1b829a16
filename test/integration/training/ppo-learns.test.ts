/**
 * The learning check of PPO (issue 21): a tiny policy that, on a task's first turn, runs `touch yes.txt` or
 * `touch no.txt` about equally often; the task's verifier asserts that yes.txt exists. `t1lab train ppo`,
 * as a user runs it (real bubblewrap sandboxes, the real verifier, the real PPO update), must raise the
 * probability of the rewarded call to at least 0.9 within a few steps. It fails when the advantage's sign
 * is flipped, when the loss mask drops the sampled tokens, or when the reward does not reach the update.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { createProtocol } from '../../../electron/agent/protocol';
import { compactHermesPrompt } from '../../../electron/agent/protocol/hermes';
import {
  completionProbabilities,
  completionSequence,
  firstTurnPrompt,
  supervisedWarmStart,
  toolCallIds,
  writeChoiceCheckpoint,
} from '../../helpers/learning-check';
import { writeSuite } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

const MAX_TURNS = 1;
const STEPS = Number(process.env.PPO_STEPS ?? 8);
const LR = Number(process.env.PPO_LR ?? 2e-3);
const EPOCHS = Number(process.env.PPO_EPOCHS ?? 2);
const ADVANTAGE = process.env.PPO_ADVANTAGE ?? 'group';
const INSTRUCTION = 'Create one empty file.';

describe('PPO learns a rewarded choice', () => {
  const tmp = makeTempDir('t1lab-ppo-learns-');
  const env = { T1LAB_HOME: join(tmp.path, 'home') };
  const suite = join(tmp.path, 'suite');
  const sft = join(tmp.path, 'sft');
  let prompt: number[];
  let good: number[];
  let bad: number[];
  let start: number[];

  beforeAll(async () => {
    const calls = ['touch yes.txt', 'touch no.txt'].map(
      (command) => createProtocol('hermes').writeAction({ tool: 'bash', command }, 'call').text,
    );
    const init = writeChoiceCheckpoint(join(tmp.path, 'init'), [
      compactHermesPrompt({ maxTurns: MAX_TURNS, timeoutSec: 60, toolsInTemplate: false, compact: true }),
      INSTRUCTION,
      ...calls,
    ]);
    writeSuite(suite, [
      {
        id: 'pick-yes',
        instruction: INSTRUCTION,
        assertions: { 'yes.txt exists': 'test -f yes.txt' },
        solution: 'touch yes.txt',
      },
    ]);
    prompt = await firstTurnPrompt(init, suite, MAX_TURNS, tmp.path);
    good = toolCallIds(init, 'touch yes.txt');
    bad = toolCallIds(init, 'touch no.txt');
    const t0 = performance.now();
    const warm = await supervisedWarmStart(
      init,
      sft,
      [completionSequence(prompt, good), completionSequence(prompt, bad)],
      { steps: 150, lr: 2e-2, decay: true },
    );
    start = await completionProbabilities(sft, prompt, [good, bad]);
    console.log(
      `prompt ${prompt.length} tokens, calls ${good.length}/${bad.length} tokens; warm start loss ${warm.loss.toFixed(3)} in ${((performance.now() - t0) / 1000).toFixed(1)} s; p(yes) ${start[0]!.toFixed(3)} p(no) ${start[1]!.toFixed(3)}`,
    );
  }, 120_000);
  afterAll(() => (process.env.KEEP_TMP ? console.log('kept', tmp.path) : tmp.remove()));

  it(`raises p(rewarded call) from about 0.5 to >= 0.9 in ${STEPS} PPO steps`, async () => {
    expect(start[0]).toBeGreaterThan(0.3);
    expect(start[1]).toBeGreaterThan(0.3);
    const config = join(tmp.path, 'ppo.toml');
    writeFileSync(
      config,
      [
        'stage = "ppo"',
        'seed = 1',
        `[model]\ncheckpoint = ${JSON.stringify(sft)}`,
        `[data]\npath = ${JSON.stringify(suite)}`,
        `[train]\nsteps = ${STEPS}\nmicro_batch_size = 8\nprovider = "cpu"\nthreads = 1`,
        `[optimizer]\nlr = ${LR}`,
        '[schedule]\nkind = "constant"\nwarmup_steps = 0',
        `[checkpoint]\nevery = ${STEPS}`,
        `[ppo]\nadvantage = "${ADVANTAGE}"\ntasks_per_step = 1\ngroup_size = 8\nconcurrency = 4\nmax_turns = ${MAX_TURNS}\nmax_tokens = ${good.length + 4}\nepochs = ${EPOCHS}\nminibatches = 1\nasync = false\nmeasure_free_gap = false`,
      ].join('\n'),
    );
    const t0 = performance.now();
    const run = await runT1lab(['train', 'ppo', '--config', config, '--out', join(tmp.path, 'run'), '--json'], {
      env,
      timeoutMs: 240_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const result = parseJsonOutput<{ checkpoint: string; final: { reward: number } }>(run);
    const end = await completionProbabilities(result.checkpoint, prompt, [good, bad]);
    console.log(
      `PPO ${STEPS} steps in ${((performance.now() - t0) / 1000).toFixed(1)} s: p(yes) ${start[0]!.toFixed(3)} -> ${end[0]!.toFixed(3)}, p(no) ${start[1]!.toFixed(3)} -> ${end[1]!.toFixed(3)}; last step's mean reward ${result.final.reward}`,
    );
    expect(end[0]).toBeGreaterThanOrEqual(0.9);
  }, 300_000);
});
