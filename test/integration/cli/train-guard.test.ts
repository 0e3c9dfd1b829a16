/**
 * `t1lab train guard`: the dense-reward guard of a PPO run folder, run as a real process: the whole guard
 * as JSON, the text tables, --strict's exit status, and bad usage (a threshold out of range, a folder that is
 * not a training run).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { DenseGuard } from '../../../electron/domain/dense-guard';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { FARMED, writeGuardRun } from '../../helpers/guard-run';
import { makeTempDir } from '../../helpers/tmp';

const home = makeTempDir();
afterAll(() => home.remove());
const env = { T1LAB_HOME: home.path };
const dir = writeGuardRun(home.path, 'guard-run');

describe('t1lab train guard', () => {
  test('--json prints the run folder and the guard: flags, per-assertion rates, rewards per category', async () => {
    const r = await runT1lab(['train', 'guard', dir, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const g = parseJsonOutput<DenseGuard & { runDir: string }>(r);
    expect(g.runDir).toBe(dir);
    expect(g.steps).toEqual([1, 2, 3, 4, 5, 6]);
    expect(g.flags).toEqual([
      {
        taskId: FARMED.taskId,
        assertion: FARMED.assertion,
        passRateBefore: 0,
        passRateAfter: 1,
        binaryBefore: 0,
        binaryAfter: 0,
      },
    ]);
    expect(g.assertions.filter((a) => a.flagged).map((a) => a.assertion)).toEqual([FARMED.assertion]);
    expect(g.categories.find((c) => c.category === FARMED.category)).toMatchObject({
      dense: { before: 0, after: 1 },
      binary: { before: 0, after: 0 },
    });
  });

  test('the text view by run id; --strict exits 1 on a flag; bad usage exits 2', async () => {
    const text = await runT1lab(['train', 'guard', 'guard-run', '--strict'], { env });
    expect(text.code).toBe(1);
    const lines = text.stdout.split('\n');
    expect(lines).toContain('Flagged assertions: 1');
    expect(lines.find((l) => l.startsWith('count-lines  output_exists'))).toMatch(/0% -> 100% +0% -> 0%$/);
    expect(lines.find((l) => l.startsWith('text-processing'))).toMatch(/12 +0\.00 -> 1\.00 +0% -> 50% +0% -> 0%$/);
    expect(lines.find((l) => l.includes('output_exists') && l.includes('+100 pp'))).toMatch(/FLAGGED$/);
    const range = await runT1lab(['train', 'guard', 'guard-run', '--min-rise', '1.01'], { env });
    expect(range.code).toBe(2);
    expect(range.stderr).toContain('--min-rise 1.01: a number from 0 to 1');
    const bad = await runT1lab(['train', 'guard', join(home.path, 'nope')], { env });
    expect(bad.code).toBe(2);
  });
});
