/**
 * The dense-reward guard of a PPO run folder (electron/lab/ppo/guard-report.ts) on rollouts written with the
 * PPO stage's writers: the farmed assertion is flagged, the learnt one and the constant ones are not, the
 * step still being collected and the aborted episodes do not count, and the per-category rewards split.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DenseGuard } from '../../../electron/domain/dense-guard';
import { readDenseGuard } from '../../../electron/lab/ppo/guard-report';
import { JsonlAppender, readRolloutEpisodes, ROLLOUT_FILES, stepDir } from '../../../electron/lab/ppo/rollout-files';
import { FARMED, GUARD_STEPS, writeGuardRun } from '../../helpers/guard-run';
import { makeTempDir } from '../../helpers/tmp';

const home = makeTempDir();
afterAll(() => home.remove());
const dir = writeGuardRun(home.path, 'guard-run');

describe('dense-reward guard of a run folder', () => {
  const guard = readDenseGuard(dir);

  it('flags the assertion whose pass rate rose while its task stayed unresolved, and only it', () => {
    expect(DenseGuard.parse(guard)).toEqual(guard);
    expect(guard.flags).toEqual([
      {
        taskId: FARMED.taskId,
        assertion: FARMED.assertion,
        passRateBefore: 0,
        passRateAfter: 1,
        binaryBefore: 0,
        binaryAfter: 0,
      },
    ]);
    const row = (a: string) => guard.assertions.find((t) => t.assertion === a)!;
    expect(row('output_exists')).toMatchObject({ flagged: true, rise: 1, category: 'text-processing' });
    // The control: it rose as much, but the task became resolved with it.
    expect(row('file_exists')).toMatchObject({
      flagged: false,
      rise: 1,
      passRateBefore: 0,
      passRateAfter: 1,
      binaryBefore: 0,
      binaryAfter: 1,
    });
    expect(row('count_correct')).toMatchObject({ flagged: false, rise: 0 });
    expect(row('greeting_ok')).toMatchObject({ flagged: false, passRateBefore: 0.5, passRateAfter: 1 });
    // Flagged first, then by rise.
    expect(guard.assertions[0]!.assertion).toBe('output_exists');
  });

  it('counts trained steps and kept episodes only, with a pass rate per step', () => {
    expect(guard.steps).toEqual([1, 2, 3, 4, 5, 6]);
    expect(guard.episodes).toBe(GUARD_STEPS * 4);
    expect(guard.assertions.find((t) => t.assertion === 'output_exists')!.series).toEqual([0, 0, 0, 1, 1, 1]);
  });

  it('puts dense and binary rewards per category side by side', () => {
    const cat = (c: string) => guard.categories.find((x) => x.category === c)!;
    expect(guard.categories.map((c) => c.category)).toEqual(['file-operations', 'text-processing']);
    expect(cat('text-processing')).toMatchObject({
      episodes: 12,
      dense: { before: 0, after: 1 },
      fraction: { before: 0, after: 0.5 },
      binary: { before: 0, after: 0 },
    });
    expect(cat('text-processing').series.binary).toEqual([0, 0, 0, 0, 0, 0]);
    expect(cat('file-operations')).toMatchObject({ dense: { before: 0.5, after: 2 }, binary: { before: 0, after: 1 } });
  });

  it('a step file that grows after a read is read again (the cache keys on size and time)', () => {
    const other = writeGuardRun(home.path, 'guard-run-2');
    expect(readDenseGuard(other).episodes).toBe(GUARD_STEPS * 4);
    const out = new JsonlAppender(join(stepDir(other, GUARD_STEPS), ROLLOUT_FILES.episodes));
    out.append({ ...readRolloutEpisodes(other, GUARD_STEPS)[0]!, key: 'late-extra' });
    out.close();
    expect(readDenseGuard(other).episodes).toBe(GUARD_STEPS * 4 + 1);
  });

  it('a higher bar flags nothing; a run with no rollouts gives an empty guard', () => {
    expect(readDenseGuard(dir, 1.01).flags).toEqual([]);
    expect(readDenseGuard(home.path)).toMatchObject({
      steps: [],
      episodes: 0,
      flags: [],
      assertions: [],
      categories: [],
    });
  });
});
