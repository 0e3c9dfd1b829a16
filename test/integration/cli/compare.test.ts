import type { CompareResult, PowerResult } from '../../../electron/domain/stats';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { writeRunFolder } from '../../helpers/runs';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir();
let runA = '';
let runB = '';

beforeAll(async () => {
  const tasks = Array.from({ length: 12 }, (_, i) => `task-${i}`);
  runA = await writeRunFolder(
    tmp.path,
    'base',
    tasks.map((task, i) => ({ task, category: i % 3 ? 'debugging' : 'security', resolved: [i < 3] })),
  );
  runB = await writeRunFolder(
    tmp.path,
    'rl',
    tasks.map((task, i) => ({ task, category: i % 3 ? 'debugging' : 'security', resolved: [i < 10] })),
  );
});
afterAll(() => tmp.remove());

describe('t1lab compare and t1lab power', () => {
  test('compare --json prints the issue shape: paired rates, bootstrap interval, McNemar, reward, categories', async () => {
    const result = await runT1lab(['compare', runA, runB, '--json']);
    expect(result.code).toBe(0);
    const r = parseJsonOutput<CompareResult>(result);
    expect(r.a).toMatchObject({ run: 'base', resolvedRate: 3 / 12 });
    expect(r.b).toMatchObject({ run: 'rl', resolvedRate: 10 / 12 });
    expect(r.a.ci95).toHaveLength(2);
    expect(r.tasks).toBe(12);
    expect(r.diff).toBeCloseTo(7 / 12, 12);
    expect(r.diffCi95[0]).toBeGreaterThan(0);
    expect(r.mcnemar).toEqual({ b: 0, c: 7, p: expect.closeTo(2 / 128, 12) });
    expect(r.reward.diff).toBeCloseTo((7 * 2) / 12, 12);
    expect(r.reward.ci95).toHaveLength(2);
    expect(Object.keys(r.byCategory).sort()).toEqual(['debugging', 'security']);
  });

  test('compare prints a readable report; a run that does not exist is named in the error', async () => {
    const text = await runT1lab(['compare', runA, runB]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('McNemar exact: b = 0 (A only), c = 7 (B only)');
    expect(text.stdout).toMatch(/B - A: \+58\.3 pp \[/);
    const missing = await runT1lab(['compare', runA, `${tmp.path}/nope`]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`${tmp.path}/nope`);
  });

  test('power --json prints the issue shape, and bad input is a usage error naming the option', async () => {
    const result = await runT1lab(['power', '--tasks', '89', '--base', '0.4', '--json']);
    expect(result.code).toBe(0);
    const r = parseJsonOutput<PowerResult>(result);
    expect(r).toMatchObject({ tasks: 89, base: 0.4, alpha: 0.05, power: 0.8 });
    expect(r.independent.mde!).toBeGreaterThan(r.paired.mde!);
    expect(r.paired.discordance).toBeGreaterThan(0);
    const measured = await runT1lab(['power', '--tasks', '89', '--base', '0.4', '--runs', `${runA},${runB}`, '--json']);
    expect(parseJsonOutput<PowerResult>(measured).paired).toMatchObject({
      discordance: 7 / 12,
      discordanceSource: expect.stringContaining('measured'),
    });
    const bad = await runT1lab(['power', '--tasks', '89', '--base', '1.2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--base');
  });
});
