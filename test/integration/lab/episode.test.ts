/**
 * Whole episodes on real sandboxes and shells: each way an episode can end (submit, turn limit, agent
 * timeout, context budget) ends it correctly, the agent's processes die, and the verifier still judges.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPolicy } from '../../../electron/agent/policy';
import { EpisodeStop } from '../../../electron/agent/episode/loop';
import type { Trajectory } from '../../../electron/domain/trajectory';
import { loadTaskSource, type Task } from '../../../electron/lab/tasks';
import { runTaskEpisode, type EpisodeSpec } from '../../../electron/lab/runs/run-episode';
import { EPISODE_FILES } from '../../../electron/lab/runs/episode-files';
import { trainByteLevelBpe } from '../../helpers/bpe';
import { writeTask } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

const HARNESS = { maxTurns: 300, contextStrategy: 'drop-oldest' as const, observationChars: 10_000 };

describe('episodes end correctly', () => {
  const tmp = makeTempDir('t1lab-episode-test-');
  let task: Task;
  let n = 0;

  beforeAll(async () => {
    const dir = writeTask(join(tmp.path, 'suite'), {
      id: 'make-hello',
      instruction: 'Create hello.txt containing exactly the line: hello',
      agentTimeoutSec: 60,
      assertions: { 'hello.txt says hello': 'grep -qx hello hello.txt', 'no marker left': '! test -e marker' },
      solution: 'cd /app\necho hello > hello.txt',
    });
    task = (await loadTaskSource(dir)).tasks[0]!;
  });
  afterAll(() => tmp.remove());

  function script(turns: unknown[], extra: Record<string, unknown> = {}): string {
    const file = join(tmp.path, `script-${n++}.json`);
    writeFileSync(file, JSON.stringify({ turns, ...extra }));
    return file;
  }

  async function episode(
    policySpec: string,
    overrides: Partial<EpisodeSpec> = {},
  ): Promise<{ trajectory: Trajectory; dir: string }> {
    const dir = join(tmp.path, `ep-${n++}`);
    mkdirSync(dir);
    const policy = await createPolicy(policySpec);
    const out = await runTaskEpisode({
      task,
      policy,
      harness: HARNESS,
      key: `${task.id}@0`,
      attempt: 0,
      seed: 1,
      dir: { abs: dir, rel: 'ep' },
      ...overrides,
    });
    expect(JSON.parse(readFileSync(join(dir, EPISODE_FILES.trajectory), 'utf8'))).toEqual(
      JSON.parse(JSON.stringify(out.trajectory)),
    );
    return { trajectory: out.trajectory, dir };
  }

  it('the oracle submits and is resolved; the folder holds trajectory, ATIF, recording and verifier output', async () => {
    const { trajectory, dir } = await episode('oracle');
    expect(trajectory.stopReason).toBe('submitted');
    expect(trajectory.resolved).toBe(true);
    expect(trajectory.reward).toEqual({ dense: 2, fraction: 1, binary: 1 });
    expect(trajectory.turns.map((t) => t.actions[0]?.tool)).toEqual(['bash', 'bash', 'submit']);
    expect(trajectory.turns[1]!.text).toContain('<tool_call>');
    expect(trajectory.turns[1]!.observation).toMatch(/\[exit code 0 · [\d.]+ s\]/);
    const atif = JSON.parse(readFileSync(join(dir, EPISODE_FILES.atif), 'utf8'));
    expect(atif.schema_version).toBe('ATIF-v1.4');
    expect(atif.steps.map((s: { source: string }) => s.source)).toEqual(['system', 'user', 'agent', 'agent', 'agent']);
    expect(atif.steps[3].tool_calls[0]).toMatchObject({
      function_name: 'bash',
      arguments: { command: 'echo hello > hello.txt' },
    });
    const cast = readFileSync(join(dir, EPISODE_FILES.recording), 'utf8').split('\n');
    expect(JSON.parse(cast[0]!)).toMatchObject({ version: 2, width: 160, height: 40 });
    expect(existsSync(join(dir, EPISODE_FILES.verifierOutput))).toBe(true);
    // The phase profile (bench envstep): every phase ran, and together they are the episode's wall time.
    const phases = trajectory.phases!;
    for (const [name, ms] of Object.entries(phases)) expect(ms, name).toBeGreaterThan(0);
    const sum = Object.values(phases).reduce((a, b) => a + b, 0);
    expect(sum).toBeLessThanOrEqual(trajectory.durationMs);
    expect(sum).toBeGreaterThan(trajectory.durationMs * 0.9);
    const v = trajectory.verifier!.timings!;
    expect(v.stepsMs).toBeGreaterThan(0);
    expect(v.setupMs + v.stepsMs + v.reportsMs + v.keepLogsMs).toBeLessThanOrEqual(phases.verifyMs);
  });

  it('the turn limit ends an episode, and the verifier still judges the work', async () => {
    const file = script(
      [{ action: { tool: 'bash', command: 'echo hello > hello.txt' } }, { action: { tool: 'bash', command: 'true' } }],
      { loop: true },
    );
    const { trajectory } = await episode(`replay:${file}`, { harness: { ...HARNESS, maxTurns: 4 } });
    expect(trajectory.stopReason).toBe('max_turns');
    expect(trajectory.turns).toHaveLength(4);
    expect(trajectory.error).toBeNull();
    expect(trajectory.resolved).toBe(true);
  });

  it("the agent timeout ends an episode mid-command, kills the agent's processes, then the verifier runs", async () => {
    // A background process that would outlive the episode (by far, however slow the machine) if the agent's
    // processes were not all killed. The script has no third turn: asking the policy for one after the agent's
    // time is up would end the episode with policy_error (the bug this test caught under load). The agent's
    // clock starts once the shell is ready, so how long the sandbox takes to start does not matter.
    const file = script([
      { action: { tool: 'bash', command: 'echo hello > hello.txt; (sleep 77.7; touch /app/marker) &' } },
      { action: { tool: 'bash', command: 'sleep 300', timeoutSec: 600 } },
    ]);
    const { trajectory } = await episode(`replay:${file}`, { harness: { ...HARNESS, agentTimeoutSec: 3 } });
    expect(trajectory.stopReason).toBe('agent_timeout');
    expect(trajectory.error).toMatchObject({ kind: 'timeout' });
    expect(trajectory.turns).toHaveLength(2);
    expect(trajectory.turns[1]!.executions[0]).toMatchObject({ timedOut: true, exitCode: null });
    expect(trajectory.turns[1]!.observation).toMatch(/still running after/);
    expect(trajectory.verifier?.assertions.map((a) => a.status)).toEqual(['passed', 'passed']);
    // The background process died with the agent's sandbox, before the verifier ran.
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toContain('sleep 77.7');
  });

  it('the context budget: drop-oldest keeps going (recorded), stop ends the episode', async () => {
    const turns = [
      { action: { tool: 'bash', command: 'seq 1 300' } },
      { action: { tool: 'bash', command: 'seq 301 600' } },
      { action: { tool: 'bash', command: 'seq 601 900' } },
      { action: { tool: 'bash', command: 'echo hello > hello.txt' } },
      { action: { tool: 'submit' } },
    ];
    // The estimating meter counts 1 token per 3 chars: ~600 tokens per observation against a 1500-token window.
    const dropping = await episode(`replay:${script(turns, { contextWindow: 1500 })}`);
    expect(dropping.trajectory.stopReason).toBe('submitted');
    expect(dropping.trajectory.resolved).toBe(true);
    expect(dropping.trajectory.contextEvents.length).toBeGreaterThan(0);
    const first = dropping.trajectory.contextEvents[0]!;
    expect(first).toMatchObject({ strategy: 'drop-oldest', droppedTurns: [0], budget: 1500 });
    expect(first.tokensAfter).toBeLessThanOrEqual(1500);
    expect(first.tokensBefore).toBeGreaterThan(1500);

    const stopping = await episode(`replay:${script(turns, { contextWindow: 1500 })}`, {
      harness: { ...HARNESS, contextStrategy: 'stop' },
    });
    expect(stopping.trajectory.stopReason).toBe('context');
    expect(stopping.trajectory.contextEvents.at(-1)).toMatchObject({ strategy: 'stop', droppedTurns: [] });
    expect(stopping.trajectory.turns.length).toBeLessThan(5);
  });

  it('token-level policies keep the TITO ledger through a real episode; a context cut forks a sample', async () => {
    const corpus = [
      '<tool_call>\n{"name": "bash", "arguments": {"command": "seq 1 300"}}\n</tool_call>',
      '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n[exit code 0 · 0.01 s]',
    ];
    writeFileSync(join(tmp.path, 'tokenizer.json'), JSON.stringify(trainByteLevelBpe(corpus, { merges: 80 })));
    const turns = [
      { action: { tool: 'bash', command: 'seq 1 300' } },
      { action: { tool: 'bash', command: 'seq 301 600' } },
      { action: { tool: 'bash', command: 'echo hello > hello.txt' } },
      { action: { tool: 'submit' } },
    ];
    const { trajectory } = await episode(
      `replay:${script(turns, { tokenizer: 'tokenizer.json', contextWindow: 4000 })}`,
    );
    expect(trajectory.stopReason).toBe('submitted');
    const ledger = trajectory.ledger!;
    expect(ledger.counters.lossDrift).toBe(0);
    expect(ledger.counters.fork).toBeGreaterThanOrEqual(1);
    expect(trajectory.contextEvents.length).toBeGreaterThanOrEqual(1);
    // Every sampled id is in the samples, in order, masked in (none of these turns drifted).
    const sampled = trajectory.turns.flatMap((t) => t.tokens!.ids);
    const trained = ledger.samples.flatMap((s) => s.ids.filter((_, i) => s.mask[i] === 1));
    expect(trained).toEqual(sampled);
    expect(trajectory.turns.slice(1).every((t) => t.ledger)).toBe(true);
  });

  it('Terminus-2 keystrokes drive the shell, a full-screen program is observed as its screen, completion is confirmed', async () => {
    const file = script(
      [
        {
          text: JSON.stringify({
            analysis: '',
            plan: 'write the file',
            commands: [{ keystrokes: 'echo hello > hello.txt\n', duration: 0.5 }],
            task_complete: false,
          }),
        },
        {
          text: JSON.stringify({
            analysis: '',
            plan: 'page a file',
            commands: [{ keystrokes: 'less /etc/os-release\n', duration: 1 }],
            task_complete: false,
          }),
        },
        {
          text: JSON.stringify({
            analysis: '',
            plan: 'quit',
            commands: [{ keystrokes: 'q', duration: 0.5 }],
            task_complete: true,
          }),
        },
        { text: JSON.stringify({ analysis: '', plan: 'yes', commands: [], task_complete: true }) },
      ],
      { protocol: 'terminus' },
    );
    const { trajectory } = await episode(`replay:${file}`);
    expect(trajectory.policy.protocol).toBe('terminus');
    expect(trajectory.stopReason).toBe('submitted');
    expect(trajectory.turns).toHaveLength(4);
    expect(trajectory.turns[1]!.executions[0]!.screen).toBe(true);
    expect(trajectory.turns[1]!.observation).toMatch(/\[current screen:\][\s\S]*(NAME|ID)=/);
    expect(trajectory.turns[2]!.observation).toContain('Are you sure the task is complete?');
    expect(trajectory.resolved).toBe(true);
  });

  it('a shell the agent exits is replaced by a new one, and the agent is told', async () => {
    const file = script([
      { action: { tool: 'bash', command: 'cd /tmp; exit 3' } },
      { action: { tool: 'bash', command: 'pwd; echo hello > hello.txt' } },
      { action: { tool: 'submit' } },
    ]);
    const { trajectory, dir } = await episode(`replay:${file}`);
    expect(trajectory.turns[0]!.observation).toContain('the shell exited with code 3; a new shell was started');
    expect(trajectory.turns[1]!.observation).toMatch(/^\/app\n/);
    expect(trajectory.resolved).toBe(true);
    expect(existsSync(join(dir, 'recording.1.cast'))).toBe(true);
  });

  it('cancellation stops an episode promptly without a verdict', async () => {
    const file = script([{ action: { tool: 'bash', command: 'sleep 30', timeoutSec: 60 } }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new EpisodeStop('cancelled')), 1500);
    const { trajectory } = await episode(`replay:${file}`, { signal: controller.signal });
    expect(trajectory.stopReason).toBe('cancelled');
    expect(trajectory.verifier).toBeNull();
  });

  it('leaves no sandbox process behind', () => {
    const ps = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(ps.split('\n').filter((l) => l.includes('bwrap') && l.includes(tmp.path))).toEqual([]);
  });
});
