/** Stage wall times of a resumable pipeline: summed over invocations, in first-run order, corrupt files named. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  addStageTime,
  readStageTimes,
  STAGE_TIMES_FILE,
  totalWallSeconds,
} from '../../../electron/lab/experiments/stage-times';
import { formatWallTime } from '../../../electron/lab/experiments/repro-report';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-stage-times-');
afterAll(() => tmp.remove());

describe('stage times', () => {
  it('sums a resumed stage over its invocations and keeps the order stages first ran in', () => {
    const dir = join(tmp.path, 'run');
    expect(readStageTimes(tmp.path)).toEqual([]);
    mkdirSync(dir);
    addStageTime(dir, 'lm', 300);
    addStageTime(dir, 'sft', 1000);
    // The SFT stage killed and resumed: its second invocation adds to the first.
    addStageTime(dir, 'sft', 500.5);
    addStageTime(dir, 'rl-dense', 60);
    const times = readStageTimes(dir);
    expect(times).toEqual([
      { stage: 'lm', wallSeconds: 300, runs: 1 },
      { stage: 'sft', wallSeconds: 1500.5, runs: 2 },
      { stage: 'rl-dense', wallSeconds: 60, runs: 1 },
    ]);
    expect(totalWallSeconds(times)).toBe(1860.5);
  });

  it('names the file when it is corrupt instead of starting the times afresh', () => {
    const dir = join(tmp.path, 'corrupt');
    mkdirSync(dir);
    writeFileSync(join(dir, STAGE_TIMES_FILE), '{"lm": ');
    expect(() => readStageTimes(dir)).toThrow(/stage-times\.json: not JSON/);
    writeFileSync(join(dir, STAGE_TIMES_FILE), '[{"stage": "lm", "wallSeconds": -1, "runs": 1}]');
    expect(() => readStageTimes(dir)).toThrow(/stage-times\.json: entry 0/);
  });

  it('formats wall times for the report', () => {
    expect(formatWallTime(8.44)).toBe('8.4 s');
    expect(formatWallTime(725)).toBe('12 min 05 s');
    expect(formatWallTime(3 * 3600 + 2 * 60 + 59)).toBe('3 h 02 min');
  });
});
