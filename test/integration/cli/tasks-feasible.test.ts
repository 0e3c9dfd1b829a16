/**
 * `t1lab tasks feasible` as a user runs it, with the bundled nano checkpoint's tokenizer: the JSON shape, a
 * budget that rules tasks out (too many commands, a call too long) and one that does not, the token
 * boundary, the text table, and bad input. Then the static transcript against the real harness: the
 * token-level oracle run through real sandboxes samples exactly the call lengths the command counted.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeasibilityReport } from '../../../electron/lab/runs/feasibility';
import { checkpointOraclePolicy } from '../../../electron/lab/runs/checkpoint-oracle';
import { measureFeasibility } from '../../../electron/lab/runs/feasibility';
import { runTaskEpisode } from '../../../electron/lab/runs/run-episode';
import { loadTaskSource } from '../../../electron/lab/tasks';
import { loadTokenizerFile } from '../../../native/model/tokenizer';
import { parseJsonOutput, REPO_ROOT, runT1lab } from '../../helpers/cli';
import { QUICK_SUITE, writeSuite, type TestTask } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

const CHECKPOINT = join(REPO_ROOT, 'models', 'nano-sft');
const LONG_LINE = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

/** The quick suite (3 tasks of 2 short commands), one task of 8 commands and one with a long command. */
const TASKS: TestTask[] = [
  ...QUICK_SUITE,
  {
    id: 'many-steps',
    instruction: 'Append the numbers 1 to 7 to log.txt, one per line.',
    assertions: { 'seven lines': '[ "$(wc -l < log.txt)" = 7 ]' },
    solution: ['cd /app', ...Array.from({ length: 7 }, (_, i) => `echo ${i + 1} >> log.txt`)].join('\n'),
  },
  {
    id: 'long-call',
    instruction: `Write this line to long.txt: ${LONG_LINE}`,
    assertions: { 'the line is there': `grep -qx '${LONG_LINE}' long.txt` },
    solution: `echo '${LONG_LINE}' > /app/long.txt`,
  },
];

type Json = FeasibilityReport & { suite: string; checkpoint: string; invalid: number };

describe('t1lab tasks feasible', () => {
  const tmp = makeTempDir('t1lab-feasible-');
  let suite: string;
  const feasible = async (...args: string[]) => {
    const r = await runT1lab(['tasks', 'feasible', '--suite', suite, '--checkpoint', CHECKPOINT, '--json', ...args], {
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    return parseJsonOutput<Json>(r);
  };

  beforeAll(() => {
    suite = writeSuite(join(tmp.path, 'suite'), TASKS);
  });
  afterAll(() => tmp.remove());

  it('--json: the documented shape; a small budget rules out the long task and the long call, a large one nothing', async () => {
    const small = await feasible('--max-turns', '4', '--max-tokens', '64');
    expect(Object.keys(small)).toEqual(expect.arrayContaining(['tasks', 'feasible', 'share', 'byFamily', 'cutCalls']));
    expect(small).toMatchObject({
      tasks: 5,
      feasible: 3,
      share: 0.6,
      budget: { maxTurns: 4, maxTokens: 64, contextWindow: 2048, promptBudget: 2048 - 64 },
    });
    const byId = Object.fromEntries(small.perTask.map((t) => [t.id, t]));
    // The leading `cd /app` is not a call of its own, as in SFT data.
    expect(byId['many-steps']).toMatchObject({ feasible: false, reasons: ['turns'], commands: 7 });
    expect(byId['long-call']).toMatchObject({ feasible: false, reasons: ['tokens'], commands: 1 });
    expect(byId['make-hello']).toMatchObject({ feasible: true, reasons: [], commands: 1 });
    // No family in these tasks' metadata: their category stands in.
    expect(small.byFamily).toEqual({
      'data-processing': { tasks: 2, feasible: 2, share: 1 },
      'file-operations': { tasks: 3, feasible: 1, share: 1 / 3 },
    });
    expect(small.cutCalls).toEqual({ count: 1, calls: 11, share: 1 / 11 });
    expect(small.reasons).toEqual({ 'no-oracle': 0, turns: 1, tokens: 1, prompt: 0 });

    const large = await feasible('--max-turns', '10', '--max-tokens', '512');
    expect(large).toMatchObject({ tasks: 5, feasible: 5, share: 1, cutCalls: { count: 0, calls: 11, share: 0 } });

    // --keep-preamble counts `cd /app` as a call, as `tasks sft-data --keep-preamble` trains it: 4 more calls,
    // and make-hello needs 2 turns.
    const kept = await feasible('--max-turns', '1', '--max-tokens', '512', '--keep-preamble');
    expect(kept.cutCalls).toEqual({ count: 0, calls: 15, share: 0 });
    expect(Object.fromEntries(kept.perTask.map((t) => [t.id, t.commands]))).toMatchObject({
      'many-steps': 8,
      'make-hello': 2,
      'long-call': 1,
    });
    expect(kept.perTask.find((t) => t.id === 'make-hello')).toMatchObject({ feasible: false, reasons: ['turns'] });
  }, 240_000);

  it('counts a call as the oracle writes it, in the checkpoint tokenizer; a call of exactly N tokens fits, N + 1 is cut', async () => {
    const tasks = (await loadTaskSource(suite)).tasks;
    const at = async (maxTokens: number) =>
      (await measureFeasibility(checkpointOraclePolicy(CHECKPOINT, { maxTokens }), tasks, {
        maxTurns: 10,
        agentTimeoutSec: 60,
      }))!.perTask.find((t) => t.id === 'long-call')!;
    const longCall = await at(512);
    // The oracle's call for this command in Hermes form, tokenized on its own as the token-level oracle samples
    // it (with the agent's timeout in the arguments, or without it as in SFT data: whichever the oracle writes).
    const tokenizer = loadTokenizerFile(CHECKPOINT);
    const call = (args: Record<string, unknown>) =>
      tokenizer.encode(`<tool_call>\n${JSON.stringify({ name: 'bash', arguments: args })}\n</tool_call>`).length;
    const command = `echo '${LONG_LINE}' > /app/long.txt`;
    expect(longCall.callTokens).toHaveLength(1);
    const n = longCall.callTokens[0]!;
    expect([call({ command, timeout: 60 }), call({ command })]).toContain(n);
    expect(n).toBeGreaterThan(64);
    expect((await at(n)).feasible).toBe(true);
    expect((await at(n - 1)).reasons).toEqual(['tokens']);
  });

  it('text mode: the totals and a table per family', async () => {
    const r = await runT1lab(
      ['tasks', 'feasible', '--suite', suite, '--checkpoint', CHECKPOINT, '--max-turns', '4', '--max-tokens', '64'],
      { timeoutMs: 120_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('3 of 5 tasks feasible for the oracle (60.0%) at 4 turns x 64 tokens');
    expect(r.stdout).toMatch(/oracle calls: 1 of 11 longer than 64 tokens/);
    expect(r.stdout).toMatch(/family\s+tasks\s+feasible\s+share\n/);
    expect(r.stdout).toMatch(/file-operations\s+3\s+1\s+33\.3%/);
  }, 120_000);

  it('bad input: an unknown suite, a missing checkpoint, a folder that is no checkpoint, a bad number', async () => {
    const notCheckpoint = join(tmp.path, 'empty');
    mkdirSync(notCheckpoint, { recursive: true });
    writeFileSync(join(notCheckpoint, 'README'), 'not a model\n');
    const run = (...args: string[]) => runT1lab(['tasks', 'feasible', ...args], { timeoutMs: 240_000 });
    const [noSuite, noCheckpoint, bad, badNumber, noArgs] = await Promise.all([
      run(
        '--suite',
        join(tmp.path, 'nope.jsonl'),
        '--checkpoint',
        CHECKPOINT,
        '--max-turns',
        '6',
        '--max-tokens',
        '96',
      ),
      run('--suite', suite, '--checkpoint', join(tmp.path, 'missing'), '--max-turns', '6'),
      run('--suite', suite, '--checkpoint', notCheckpoint),
      run('--suite', suite, '--checkpoint', CHECKPOINT, '--max-tokens', 'lots'),
      run('--checkpoint', CHECKPOINT),
    ]);
    expect(noSuite.code).not.toBe(0);
    expect(noSuite.stderr).toContain(`${join(tmp.path, 'nope.jsonl')}: no such file or folder`);
    expect(noCheckpoint.code).not.toBe(0);
    expect(noCheckpoint.stderr).toContain(`--checkpoint ${join(tmp.path, 'missing')}: no such checkpoint folder`);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('neither a t1-moe checkpoint nor a published Hugging Face folder');
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr).toContain("--max-tokens: 'lots' is not a positive integer");
    expect(noArgs.code).not.toBe(0);
    expect(noArgs.stderr).toContain('--suite');
  }, 300_000);

  it('the static transcript is the harness transcript: the token-level oracle in real sandboxes samples exactly the counted calls', async () => {
    const report = await feasible('--max-turns', '10', '--max-tokens', '512');
    const tasks = (await loadTaskSource(suite)).tasks.filter((t) => ['sum-numbers', 'long-call'].includes(t.id));
    const policy = checkpointOraclePolicy(CHECKPOINT, { maxTokens: 512, skipPreamble: true });
    for (const task of tasks) {
      const dir = join(tmp.path, 'episodes', task.id);
      mkdirSync(dir, { recursive: true });
      const { trajectory } = await runTaskEpisode({
        task,
        policy,
        harness: { maxTurns: 10, contextStrategy: 'drop-oldest', observationChars: 10_000 },
        key: `${task.id}@0`,
        attempt: 0,
        seed: 0,
        dir: { abs: dir, rel: task.id },
      });
      expect(trajectory.resolved, task.id).toBe(true);
      // Every turn but the closing submit, less the end-of-turn token the sampler stops on.
      const sampled = trajectory.turns
        .filter((t) => t.actions[0]?.tool === 'bash')
        .map((t) => t.tokens!.ids.length - 1);
      expect(sampled, task.id).toEqual(report.perTask.find((t) => t.id === task.id)!.callTokens);
    }
  }, 120_000);
});
