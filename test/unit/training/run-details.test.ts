/**
 * What the Training page shows of a run's files: its config back as TOML (that parses to the same values),
 * flat hyperparameters, the train.log the trainer appends to (messages said before the folder exists are
 * kept), the tail of a metrics.jsonl being written, and the held-out points of its checkpoint evals.
 */
import { mkdirSync, writeFileSync, appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterAll, describe, expect, test } from 'vitest';
import { heldOutPoints } from '../../../electron/lab/training/held-out';
import { configAsToml, flattenConfig, readTrainingRunDetails } from '../../../electron/lab/training/run-details';
import { readRunLogTail, runLog, RUN_LOG_FILE } from '../../../electron/lab/training/run-log';
import { tailLines } from '../../../electron/lab/training/tail-lines';
import { wilson } from '../../../electron/lab/runs/stats';
import { writeRunFolder } from '../../helpers/runs';
import { makeTempDir } from '../../helpers/tmp';
import { writeTrainingRun } from '../../helpers/training-run';

const tmp = makeTempDir();
afterAll(() => tmp.remove());

const config = {
  stage: 'ppo',
  seed: 3,
  model: { checkpoint: '/m', preset: null },
  optimizer: { lr: 1e-5, betas: [0.9, 0.95] },
  ppo: { reward: 'dense', clip: 0.2 },
};

describe('a run config for the page', () => {
  test('TOML that parses back to the config (nulls left out: unset)', () => {
    const toml = configAsToml(config);
    expect(parse(toml)).toEqual({ ...config, model: { checkpoint: '/m' } });
  });
  test('flat hyperparameters in the config order', () => {
    expect(flattenConfig(config)).toEqual([
      { key: 'stage', value: 'ppo' },
      { key: 'seed', value: '3' },
      { key: 'model.checkpoint', value: '/m' },
      { key: 'model.preset', value: 'null' },
      { key: 'optimizer.lr', value: '0.00001' },
      { key: 'optimizer.betas', value: '[0.9,0.95]' },
      { key: 'ppo.reward', value: 'dense' },
      { key: 'ppo.clip', value: '0.2' },
    ]);
  });
});

describe('train.log', () => {
  test('keeps what was said before the folder existed, then appends each message', () => {
    const dir = join(tmp.path, 'log-run');
    mkdirSync(dir);
    const forwarded: string[] = [];
    const log = runLog((m) => forwarded.push(m));
    log.log('preparing');
    expect(readRunLogTail(dir, 10)).toEqual({ lines: [], total: 0 });
    log.attach(dir);
    log.log('step 1\n');
    log.log('done');
    expect(forwarded).toEqual(['preparing', 'step 1\n', 'done']);
    const { lines, total } = readRunLogTail(dir, 2);
    expect(total).toBe(3);
    expect(lines.map((l) => l.replace(/^\S+ /, ''))).toEqual(['step 1', 'done']);
    expect(readFileSync(join(dir, RUN_LOG_FILE), 'utf8')).toMatch(/^\d{4}-\d\d-\d\dT\S+Z preparing\n/);
  });
});

describe('metrics.jsonl tail', () => {
  test('the last complete lines; a line being written is not one', () => {
    const file = join(tmp.path, 'metrics.jsonl');
    writeFileSync(file, Array.from({ length: 30 }, (_, i) => `{"step":${i}}\n`).join(''));
    appendFileSync(file, '{"step":30,"lo');
    const tail = tailLines(file, 5);
    expect(tail).toEqual([25, 26, 27, 28, 29].map((i) => `{"step":${i}}`));
    expect(tailLines(join(tmp.path, 'absent'), 5)).toEqual([]);
  });

  test('a fixture run read whole: stage, TOML, hyperparameters, 20 metric rows', () => {
    const dir = writeTrainingRun(join(tmp.path, 'data'), 'r1', { steps: 30 });
    const d = readTrainingRunDetails('r1', dir);
    expect(d.stage).toBe('ppo');
    expect(parse(d.configToml)).toEqual({ schedule: { steps: 30 }, seed: 1 });
    expect(d.metricsTail).toHaveLength(20);
    expect(JSON.parse(d.metricsTail.at(-1)!).step).toBe(29);
    expect(d.log).toEqual([]);
  });
});

describe('held-out points', () => {
  test('the eval runs of the run’s checkpoints, by step, with Wilson intervals; other runs’ evals left out', async () => {
    const data = join(tmp.path, 'held');
    writeTrainingRun(data, 'ppo-a', { steps: 10, checkpoints: [5, 10] });
    writeTrainingRun(data, 'ppo-b', { steps: 10, checkpoints: [5] });
    const tasks = (n: number, resolved: number) =>
      Array.from({ length: n }, (_, i) => ({ task: `t${i}`, resolved: [i < resolved] }));
    const ck = (r: string, step: number) =>
      `onnx:${join(data, 'training', r, 'checkpoints', `step-${String(step).padStart(7, '0')}`)}`;
    await writeRunFolder(join(data, 'runs'), 'e10', tasks(8, 6), { policy: ck('ppo-a', 10) });
    await writeRunFolder(join(data, 'runs'), 'e5', tasks(8, 2), { policy: ck('ppo-a', 5) });
    await writeRunFolder(join(data, 'runs'), 'other', tasks(8, 8), { policy: ck('ppo-b', 5) });
    await writeRunFolder(join(data, 'runs'), 'plain', tasks(8, 8));
    const points = heldOutPoints(data, 'ppo-a');
    expect(points.map((p) => [p.step, p.evalRunId, p.resolvedRate, p.tasks, p.complete])).toEqual([
      [5, 'e5', 0.25, 8, true],
      [10, 'e10', 0.75, 8, true],
    ]);
    expect(points[0]!.ci95).toEqual(wilson(0.25, 8));
    expect(heldOutPoints(join(tmp.path, 'nothing'), 'ppo-a')).toEqual([]);
  });
});
