/** The Pages' pure logic: errors in the user's words, failure key lines, run diffs, CSV export, scales. */
import { describe, expect, test } from 'vitest';
import { userError } from '../../../renderer/src/lab/errors';
import { keyLines } from '../../../renderer/src/components/common/failure-lines';
import { sortDifficulties } from '../../../renderer/src/components/common/difficulty';
import { diffRuns } from '../../../renderer/src/components/runs/compare/task-diff';
import { episodesCsv } from '../../../renderer/src/components/runs/export-format';
import { logprobColor, logprobPosition } from '../../../renderer/src/components/models/logprob-scale';
import { describeContextEvent } from '../../../renderer/src/components/runs/context-text';
import type { EpisodeRecord } from '../../../electron/domain/runs';

function episode(
  taskId: string,
  attempt: number,
  resolved: boolean,
  extra: Partial<EpisodeRecord> = {},
): EpisodeRecord {
  return {
    key: `${taskId}@${attempt}`,
    taskId,
    attempt,
    category: 'c',
    difficulty: 'easy',
    resolved,
    reward: {
      dense: resolved ? 1 : 0,
      fraction: resolved ? 1 : 0,
      binary: resolved ? 1 : 0,
    } as EpisodeRecord['reward'],
    turns: 2,
    stopReason: 'submitted',
    error: null,
    tokens: { prompt: 0, completion: 0 },
    costUsd: null,
    durationMs: 1234.5,
    dir: 'x',
    finishedAt: '2026-01-01T00:00:00Z',
    ...extra,
  };
}

describe('userError', () => {
  test('a schema issue becomes a sentence about the labelled field', () => {
    const error = {
      code: 'INVALID_PARAMS',
      message: 'models.sample: maxTokens: Too small: expected number to be >=1',
      details: [
        { code: 'too_small', origin: 'number', minimum: 1, inclusive: true, path: ['maxTokens'], message: 'Too small' },
      ],
    };
    expect(userError(error, { maxTokens: 'Max tokens' })).toEqual({
      message: 'Max tokens must be at least 1.',
      field: 'maxTokens',
    });
  });
  test('the most specific labelled path wins; method names are dropped from other messages', () => {
    const error = {
      code: 'INVALID_PARAMS',
      message: '',
      details: [{ code: 'too_small', origin: 'number', minimum: 32, path: ['limits', 'memoryMb'] }],
    };
    expect(userError(error, { limits: 'A limit', 'limits.memoryMb': 'Memory (MiB)' }).field).toBe('limits.memoryMb');
    expect(userError({ code: 'NOT_FOUND', message: 'runs.start: no such suite' }).message).toBe('no such suite');
    expect(userError({ code: 'NOT_FOUND', message: 'x', details: { field: 'path' } }, { path: 'Folder' }).field).toBe(
      'path',
    );
  });
});

describe('keyLines', () => {
  test('a Python traceback gives its last frame and exception, not its first line', () => {
    const tb =
      'exit 1: Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n    assert n == 3\nAssertionError: expected 3 words';
    expect(keyLines(tb)).toEqual(['File "<string>", line 1, in <module>', 'AssertionError: expected 3 words']);
  });
  test("pytest's E lines are the assertion", () => {
    expect(
      keyLines(
        '____ test_x ____\n    def test_x():\n>       assert f() == 2\nE       assert 1 == 2\nE        +  where 1 = f()\n',
      ),
    ).toEqual(['assert 1 == 2', '+  where 1 = f()']);
  });
  test('otherwise the last meaningful lines', () => {
    expect(keyLines('a\n\nb\nc\nd\ne\n=====')).toEqual(['b', 'c', 'd', 'e']);
  });
});

describe('runs', () => {
  test('diffRuns pairs tasks and says what changed', () => {
    const a = [episode('t1', 0, true), episode('t2', 0, false), episode('t3', 0, true)];
    const b = [episode('t1', 0, false), episode('t2', 0, true), episode('t4', 0, true)];
    const byTask = Object.fromEntries(diffRuns(a, b).map((d) => [d.taskId, d.change]));
    expect(byTask).toEqual({ t1: 'lost', t2: 'gained', t3: 'only-a', t4: 'only-b' });
  });
  test('episodesCsv quotes what needs it, one row per episode in key order', () => {
    const csv = episodesCsv([
      episode('b', 0, true),
      episode('a', 0, false, { error: { kind: 'policy', message: 'said "no", twice' } }),
    ])
      .trim()
      .split('\n');
    expect(csv).toHaveLength(3);
    expect(csv[1]).toMatch(/^a@0,a,0,/);
    expect(csv[1]).toContain('"said ""no"", twice"');
    expect(csv[2]).toMatch(/,1235,2026-01-01T00:00:00Z$/);
  });
  test('difficulty sorts easy, medium, hard, then the rest', () => {
    expect(sortDifficulties(['unknown', 'hard', 'easy', 'medium'])).toEqual(['easy', 'medium', 'hard', 'unknown']);
  });
  test('a context event says tokens against the budget', () => {
    const text = describeContextEvent(
      { turn: 0, strategy: 'drop-oldest', droppedTurns: [], tokensBefore: 812, tokensAfter: 812, budget: 224 },
      true,
    );
    expect(text).toBe(
      'before turn 1 the conversation needed 812 tokens; the budget is 224 (the window less what is kept for the reply). Nothing could be dropped (the system prompt and the instruction alone do not fit), so the episode stopped.',
    );
  });
});

describe('log-prob scale', () => {
  test('maps p = 1e-6 .. 1 onto 0 .. 1 and reads on both ends', () => {
    expect(logprobPosition(0)).toBe(1);
    expect(logprobPosition(Math.log(1e-6))).toBeCloseTo(0, 10);
    expect(logprobPosition(Math.log(1e-3))).toBeCloseTo(0.5, 10);
    expect(logprobColor(0)).toEqual({ background: 'rgb(253 231 37)', color: '#111' });
    expect(logprobColor(-50).color).toBe('#f4f4f4');
  });
});
