/**
 * The Training page's backend: training.* through the host, the run in the real trainer worker process;
 * progress and metrics arrive as events; pause holds it at a step boundary, resume continues, stop writes a
 * checkpoint first; a second start while one runs is refused; a stopped run resumes from disk; runs made
 * by `t1lab train` in the same data folder are listed too.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../../electron/ipc/common/client';
import type { LabContract } from '../../../electron/ipc/common/contract';
import { createMemoryPair } from '../../../electron/ipc/common/memory';
import type { TrainingProgress } from '../../../electron/domain/training';
import { createLabHost, type LabHost } from '../../../electron/lab/host';
import { parseRunConfig } from '../../../electron/lab/training/config/run-config';
import { startTraining } from '../../../electron/lab/training/session';
import { forkLauncher } from '../../../electron/processes/launcher';
import { TINY_TEXT, writeTinyCheckpoint } from '../../helpers/tiny-checkpoint';
import { makeTempDir } from '../../helpers/tmp';

describe('training.* through the host and the trainer worker', () => {
  const tmp = makeTempDir('t1lab-trainer-host-');
  const dataDir = join(tmp.path, 'data');
  let host: LabHost;
  let client: Client<LabContract>;
  let toml: string;

  beforeAll(() => {
    const model = writeTinyCheckpoint(join(tmp.path, 'tiny'));
    const corpus = join(tmp.path, 'corpus.txt');
    writeFileSync(corpus, TINY_TEXT);
    toml = `stage = "lm"\n[model]\ncheckpoint = "${model}"\n[data]\npath = "${corpus}"\neval_fraction = 0\n[train]\nsteps = 400\nbatch_size = 2\nmicro_batch_size = 2\nthreads = 1\nprovider = "cpu"\n[checkpoint]\nevery = 100\n[lm]\nseq_len = 16\n`;
    host = createLabHost({ dataDir, launcher: forkLauncher, log: () => {} });
    const pair = createMemoryPair();
    host.attach(pair.server);
    client = createClient<LabContract>(pair.client);
  });
  afterAll(async () => {
    await host.dispose();
    tmp.remove();
  });

  it('a bad config is refused naming the key', async () => {
    await expect(
      client.call('training.start', { stage: 'lm', configToml: toml.replace('[train]', '[train]\nstepz = 3') }),
    ).rejects.toThrow(/train\.stepz: unknown key/);
    const def = await client.call('training.defaultConfig', { stage: 'sft', preset: 'micro' });
    expect(def.toml).toContain('stage = "sft"');
  });

  it('starts, streams, pauses, resumes, stops with a checkpoint, and resumes from disk', async () => {
    const progress: TrainingProgress[] = [];
    const metrics: number[] = [];
    const off = [
      client.on('training.progress', (p) => progress.push(p)),
      client.on('training.metrics', (m) => metrics.push(m.row.step)),
    ];
    const { runId, runDir } = await client.call(
      'training.start',
      { stage: 'lm', configToml: toml },
      { timeoutMs: 120_000 },
    );
    expect(runDir).toBe(join(dataDir, 'training', runId));
    await expect.poll(() => metrics.length, { timeout: 60_000, interval: 50 }).toBeGreaterThanOrEqual(2);

    await expect(client.call('training.start', { stage: 'lm', configToml: toml })).rejects.toThrow(
      /already in progress/,
    );

    await client.call('training.pause', { runId });
    await expect.poll(() => progress.at(-1)?.state, { timeout: 60_000, interval: 50 }).toBe('paused');
    const pausedAt = progress.at(-1)!.step;
    const status = await client.call('training.status', { runId });
    expect(status.run).toMatchObject({ state: 'paused', step: pausedAt, stage: 'lm' });
    // Nothing trains while paused: a round trip to the worker later, still the same step.
    await client.call('training.list', {});
    expect((await client.call('training.status', { runId })).run.step).toBe(pausedAt);

    await client.call('training.resume', { runId });
    await expect.poll(() => metrics.at(-1) ?? 0, { timeout: 60_000, interval: 50 }).toBeGreaterThan(pausedAt + 1);

    await client.call('training.stop', { runId });
    await expect.poll(() => progress.at(-1)?.state, { timeout: 60_000, interval: 50 }).toBe('stopped');
    const stopped = progress.at(-1)!;
    expect(stopped.lastCheckpoint?.step).toBe(stopped.step);
    expect(stopped.step).toBeLessThan(400);

    const rows = (await client.call('training.metrics', { runId, afterStep: 0 })).rows;
    expect(rows.map((r) => r.step)).toEqual(Array.from({ length: stopped.step }, (_, i) => i + 1));

    // Resume from the stopped run's checkpoint, with fewer total steps so it finishes now.
    await client.call('training.resume', { runId, steps: stopped.step + 3 }, { timeoutMs: 120_000 });
    await expect.poll(() => progress.at(-1)?.state, { timeout: 60_000, interval: 50 }).toBe('completed');
    expect(progress.at(-1)!.step).toBe(stopped.step + 3);
    off.forEach((f) => f());

    // A run made outside the worker (as `t1lab train` does) in the same data folder is listed too.
    const cliRun = join(dataDir, 'training', 'cli-run');
    await (
      await startTraining(
        {
          config: parseRunConfig({
            stage: 'lm',
            model: { checkpoint: join(tmp.path, 'tiny') },
            data: { path: join(tmp.path, 'corpus.txt'), eval_fraction: 0 },
            train: { steps: 2, batch_size: 2, micro_batch_size: 2, threads: 1, provider: 'cpu' },
            lm: { seq_len: 16 },
          }),
          configSource: null,
          out: cliRun,
        },
        { dataDir },
      )
    ).done;
    const list = await client.call('training.list', {});
    expect(list.map((r) => r.runId).sort()).toEqual(['cli-run', runId].sort());
    expect(list.find((r) => r.runId === runId)).toMatchObject({
      state: 'completed',
      step: stopped.step + 3,
      totalSteps: stopped.step + 3,
    });
  }, 180_000);
});
