/**
 * `t1lab train watch`: the live text view of a training run, run as a real process against run folders in
 * the trainer's layout: once, live while a run appends steps until it completes, and its failures.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { REPO_ROOT, runT1lab } from '../../helpers/cli';
import { appendMetrics, writeTrainingRun } from '../../helpers/training-run';
import { makeTempDir } from '../../helpers/tmp';

const home = makeTempDir();
afterAll(() => home.remove());
const env = { T1LAB_HOME: home.path };

describe('t1lab train watch', () => {
  test('--once prints the state, the progress and the main figures by group', async () => {
    writeTrainingRun(home.path, 'run-once', { steps: 40, totalSteps: 100, state: 'paused' });
    const r = await runT1lab(['train', 'watch', 'run-once', '--once'], { env });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('run-once  ppo  PAUSED');
    expect(lines[1]).toMatch(/^\[#{12}-{18}\] step 39\/100 \(39%\) {2}eta —/);
    for (const heading of ['Reward and resolution', 'Policy', 'TITO and R3', 'System'])
      expect(lines).toContain(heading);
    const reward = lines.find((l) => l.trim().startsWith('reward_dense'))!;
    expect(reward).toMatch(/^ {2}reward_dense +\d\.\d+ +ema +\d\.\d+ +\[\d\.\d+, \d\.\d+\] +[▁▂▃▄▅▆▇█]{24}$/);
    expect(lines.some((l) => l.trim().startsWith('train_infer_gap_r3'))).toBe(true);
  });

  test('follows a live run step by step and exits 0 when it completes', async () => {
    const dir = writeTrainingRun(home.path, 'run-live', { steps: 5, totalSteps: 8, state: 'running' });
    const cli = fileURLToPath(new URL('../../../electron/cli/t1lab.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', cli, 'train', 'watch', dir, '--json', '--interval', '0.2'],
      { cwd: REPO_ROOT, env: { ...process.env, ...env } },
    );
    const updates: { run: { step: number; state: string }; figures: { key: string; last: number }[] }[] = [];
    let buffer = '';
    const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Each time the view reports, the "trainer" takes the next step; at step 7 it completes.
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        const u = JSON.parse(line) as (typeof updates)[number];
        updates.push(u);
        const step = u.run.step;
        if (step < 7) appendMetrics(dir, step + 1, step + 2);
        else writeFileSync(join(dir, 'status.json'), JSON.stringify({ state: 'completed', step: 7, totalSteps: 8 }));
      }
    });
    expect(await exit).toBe(0);
    expect(updates.map((u) => u.run.step)).toEqual([4, 5, 6, 7, 7]);
    expect(updates.at(-1)!.run.state).toBe('completed');
    expect(updates[0]!.figures.map((f) => f.key)).toContain('reward_dense');
  });

  test('exits 1 for a failed run and 2 for a folder that is not a training run', async () => {
    writeTrainingRun(home.path, 'run-failed', { steps: 3, state: 'failed' });
    const failed = await runT1lab(['train', 'watch', 'run-failed'], { env });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('FAILED');
    const bad = await runT1lab(['train', 'watch', join(home.path, 'nope')], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${join(home.path, 'nope')}: not a training run folder`);
  });
});
