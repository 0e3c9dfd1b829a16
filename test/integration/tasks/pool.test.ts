/**
 * `t1lab tasks pool`: a real probe (an eval run with 3 attempts per task, through real sandboxes and the
 * real verifier, against a local OpenAI-compatible server playing the model) and the pack it keeps. The
 * model solves write-file tasks in its first attempt only (the attempts disagree: a policy signal) and
 * never tries count-matches (every attempt earns 0: no signal), so the pool is the write-file tasks.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvalSummary } from '../../../electron/domain/runs';
import { findFamily } from '../../../tasks/families';
import { familyPackLine, generateFamilyTask } from '../../helpers/family-tasks';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import {
  startOpenAiFixture,
  type FixtureReply,
  type FixtureRequest,
  type OpenAiFixture,
} from '../../helpers/openai-fixture';
import { makeTempDir } from '../../helpers/tmp';

describe('t1lab tasks pool', () => {
  const tmp = makeTempDir('t1lab-pool-');
  const env = { T1LAB_HOME: join(tmp.path, 'home') };
  let fixture: OpenAiFixture;
  const probePack = join(tmp.path, 'probe.jsonl');
  const trainPack = join(tmp.path, 'train.jsonl');
  const probe = (name: string, seed: number) => generateFamilyTask(findFamily(name)!, seed);
  const probeTasks = [probe('write-file', 3), probe('write-file', 4), probe('count-matches', 3)];
  const trainTasks = [
    probe('write-file', 10),
    probe('count-matches', 10),
    probe('write-file', 11),
    probe('count-matches', 11),
  ];

  beforeAll(async () => {
    writeFileSync(probePack, probeTasks.map((t) => familyPackLine(t) + '\n').join(''));
    writeFileSync(trainPack, trainTasks.map((t) => familyPackLine(t) + '\n').join(''));
    fixture = await startOpenAiFixture();
    // The solution's commands, by instruction; the first episode of each write-file task runs them.
    const solutions = probeTasks.map((t) => ({
      id: t.id,
      instruction: t.files.find((f) => f.path === 'instruction.md')!.text.trim(),
      commands: t.files
        .find((f) => f.path === 'solution/solve.sh')!
        .text.split('\n')
        .filter((l) => l && !l.startsWith('#!') && l !== 'set -e')
        .join('\n'),
    }));
    const episodesSeen = new Map<string, number>();
    fixture.fallback = (request: FixtureRequest): FixtureReply => {
      const prompt = request.body.messages.map((m) => m.content ?? '').join('\n');
      const task = solutions.find((s) => prompt.includes(s.instruction))!;
      const done = request.body.messages.filter((m) => m.role === 'assistant').length;
      if (done === 0) episodesSeen.set(task.id, (episodesSeen.get(task.id) ?? 0) + 1);
      const solves = task.id.startsWith('write-file') && episodesSeen.get(task.id) === 1;
      const call =
        solves && done === 0
          ? { name: 'bash', arguments: JSON.stringify({ command: task.commands }) }
          : { name: 'submit', arguments: '{}' };
      return { kind: 'message', content: '', toolCalls: [call] };
    };
  });
  afterAll(async () => {
    await fixture.close();
    tmp.remove();
  });

  it('keeps the families whose probe attempts disagreed, and says why per family', async () => {
    const probeRun = join(tmp.path, 'probe-run');
    const ev = await runT1lab(
      [
        'eval',
        '--suite',
        probePack,
        '--policy',
        `openai:${fixture.baseUrl}#fixture`,
        '--attempts',
        '3',
        '--concurrency',
        '1',
        '--out',
        probeRun,
        '--json',
      ],
      { env, timeoutMs: 300_000 },
    );
    const summary = parseJsonOutput<EvalSummary>(ev);
    expect(summary).toMatchObject({ tasks: 3, episodes: 9 });
    expect(summary.resolvedRate).toBeCloseTo(2 / 9, 9);

    const out = join(tmp.path, 'pool.jsonl');
    const r = await runT1lab(['tasks', 'pool', '--probe', probeRun, '--suite', trainPack, '--out', out, '--json'], {
      env,
    });
    const pool = parseJsonOutput<{
      families: Record<
        string,
        { tasks: number; episodes: number; resolved: number; mixedTasks: number; probedTasks: number }
      >;
      kept: string[];
      tasks: number;
      out: string;
    }>(r);
    expect(pool.kept).toEqual(['write-file']);
    expect(pool.families['write-file']).toMatchObject({ tasks: 2, episodes: 6, mixedTasks: 2, probedTasks: 2 });
    expect(pool.families['write-file']!.resolved).toBeCloseTo(2 / 6, 9);
    expect(pool.families['count-matches']).toMatchObject({ tasks: 1, episodes: 3, resolved: 0, mixedTasks: 0 });
    expect(pool.tasks).toBe(2);
    const ids = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids).toEqual([trainTasks[0]!.id, trainTasks[2]!.id]);
    expect(ids.every((id) => id.startsWith('write-file-'))).toBe(true);

    // A family needs --min-mixed probe tasks that disagreed: 3 is more than write-file has, so nothing is kept.
    const none = await runT1lab(
      [
        'tasks',
        'pool',
        '--probe',
        probeRun,
        '--suite',
        trainPack,
        '--out',
        join(tmp.path, 'none.jsonl'),
        '--min-mixed',
        '3',
      ],
      { env },
    );
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /no family of .*train\.jsonl had 3\+ probe tasks whose attempts earned different dense rewards/,
    );
    // --all-if-none: the whole suite, said loudly (t1lab repro uses this so a weak policy still gets its PPO stage).
    const all = await runT1lab(
      [
        'tasks',
        'pool',
        '--probe',
        probeRun,
        '--suite',
        trainPack,
        '--out',
        join(tmp.path, 'all.jsonl'),
        '--min-mixed',
        '3',
        '--all-if-none',
        '--json',
      ],
      { env },
    );
    expect(parseJsonOutput<{ kept: string[]; tasks: number; fallback: boolean }>(all)).toMatchObject({
      kept: [],
      tasks: 4,
      fallback: true,
    });
    expect(all.stderr).toMatch(/warning: no family .*--all-if-none: the pool is the whole suite/);
  }, 300_000);

  it('bad input names the flag and the value', async () => {
    const notRun = await runT1lab(
      ['tasks', 'pool', '--probe', tmp.path, '--suite', trainPack, '--out', join(tmp.path, 'x.jsonl')],
      { env },
    );
    expect(notRun.code).toBe(2);
    expect(notRun.stderr).toMatch(/--probe: .* is not an eval run folder \(no run\.json\)/);
    const badReward = await runT1lab(
      [
        'tasks',
        'pool',
        '--probe',
        tmp.path,
        '--suite',
        trainPack,
        '--out',
        join(tmp.path, 'x.jsonl'),
        '--reward',
        'sparse',
      ],
      { env },
    );
    expect(badReward.code).toBe(2);
    expect(badReward.stderr).toMatch(/--reward: 'sparse' is not one of dense, fraction, binary/);
  });
});
