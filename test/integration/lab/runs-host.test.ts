/**
 * The Runs page's backend: the host's runs.* methods over the contract, an evaluation running in the real
 * eval worker process, its progress and terminal bytes arriving as events, results read back from disk.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../../electron/ipc/common/client';
import type { LabContract } from '../../../electron/ipc/common/contract';
import { createMemoryPair } from '../../../electron/ipc/common/memory';
import type { RunProgress } from '../../../electron/domain/runs';
import { createLabHost, type LabHost } from '../../../electron/lab/host';
import { forkLauncher } from '../../../electron/processes/launcher';
import { writeSuite } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

describe('runs.* through the host and the eval worker', () => {
  const tmp = makeTempDir('t1lab-runs-host-');
  let host: LabHost;
  let client: Client<LabContract>;
  let suite: string;

  beforeAll(() => {
    suite = writeSuite(join(tmp.path, 'suite'));
    host = createLabHost({ dataDir: join(tmp.path, 'data'), launcher: forkLauncher, log: () => {} });
    const pair = createMemoryPair();
    host.attach(pair.server);
    client = createClient<LabContract>(pair.client);
  });
  afterAll(async () => {
    await host.dispose();
    tmp.remove();
  });

  it('starts an evaluation, streams progress and terminals, then serves results, episodes and recordings', async () => {
    const progress: RunProgress[] = [];
    const terminals = new Map<string, string>();
    const offProgress = client.on('runs.progress', (p) => progress.push(p));
    const offTerminal = client.on('runs.terminal', (t) => terminals.set(t.key, (terminals.get(t.key) ?? '') + t.data));
    const { runId, runDir } = await client.call(
      'runs.start',
      { suite, policy: 'oracle', attempts: 2, concurrency: 2 },
      { timeoutMs: 120_000 },
    );
    expect(runDir).toBe(join(tmp.path, 'data', 'runs', runId));
    await expect.poll(() => progress.at(-1)?.state, { timeout: 120_000, interval: 200 }).toBe('done');
    offProgress();
    offTerminal();

    const last = progress.at(-1)!;
    expect(last).toMatchObject({ runId, total: 6, done: 6, resolved: 6, cut: 0, running: [] });
    expect(progress.some((p) => p.running.length === 2)).toBe(true);
    // The live terminals carried what the oracle typed and what the shell answered.
    expect(terminals.get('sum-numbers@1')).toContain('numbers.txt');

    const list = await client.call('runs.list', {});
    expect(list.find((r) => r.id === runId)).toMatchObject({
      state: 'complete',
      total: 6,
      done: 6,
      resolvedRate: 1,
      policy: 'oracle',
      kind: 'eval',
    });
    const run = await client.call('runs.get', { runId });
    expect(run.stats).toMatchObject({ tasks: 3, episodes: 6, resolvedRate: 1, passAtK: { '1': 1, '2': 1 } });
    expect(run.stats.ci95Bootstrap).toEqual([1, 1]);
    expect(Object.keys(run.stats.byCategory)).toEqual(['data-processing', 'file-operations']);

    const episode = await client.call('runs.episode', { runId, key: 'make-hello@0' });
    expect(episode.record?.resolved).toBe(true);
    expect(episode.trajectory.turns.map((t) => t.actions[0]?.tool)).toEqual(['bash', 'bash', 'submit']);
    expect(episode.trajectory.verifier?.assertions[0]).toMatchObject({
      name: 'hello.txt says hello',
      status: 'passed',
    });
    expect(episode.verifierOutput).toContain('assertion: hello.txt says hello');
    expect(episode.hasRecording).toBe(true);
    const recording = await client.call('runs.recording', { runId, key: 'make-hello@0' });
    expect(JSON.parse(recording.cast.split('\n')[0]!)).toMatchObject({ version: 2 });
    expect(recording.cast).toContain('hello');
  }, 180_000);

  it('cancels a running evaluation (finished episodes stay) and resumes it to the end', async () => {
    const script = join(tmp.path, 'slow.json');
    writeFileSync(
      script,
      JSON.stringify({
        turns: [{ delayMs: 800, action: { tool: 'bash', command: 'true' } }, { action: { tool: 'submit' } }],
      }),
    );
    const progress: RunProgress[] = [];
    const off = client.on('runs.progress', (p) => progress.push(p));
    const { runId } = await client.call(
      'runs.start',
      { suite, policy: `replay:${script}`, attempts: 3, concurrency: 1 },
      { timeoutMs: 120_000 },
    );
    await expect
      .poll(() => progress.filter((p) => p.runId === runId).at(-1)?.done ?? 0, { timeout: 60_000, interval: 100 })
      .toBeGreaterThanOrEqual(2);
    const live = await client.call('runs.live', { runId });
    expect(live.episodes).toHaveLength(1);
    expect(await client.call('runs.cancel', { runId })).toEqual({ cancelled: true });
    await expect
      .poll(() => progress.filter((p) => p.runId === runId).at(-1)?.state, { timeout: 30_000 })
      .toBe('cancelled');
    const cancelledAt = progress.filter((p) => p.runId === runId).at(-1)!.done;
    expect(cancelledAt).toBeLessThan(9);
    expect((await client.call('runs.list', {})).find((r) => r.id === runId)?.state).toBe('incomplete');

    await client.call('runs.resume', { runId }, { timeoutMs: 120_000 });
    await expect
      .poll(() => progress.filter((p) => p.runId === runId).at(-1)?.state, { timeout: 120_000, interval: 200 })
      .toBe('done');
    off();
    const run = await client.call('runs.get', { runId });
    expect(run.episodes).toHaveLength(9);
    expect(new Set(run.episodes.map((e) => e.key)).size).toBe(9);
  }, 240_000);

  it('names what is missing, and refuses run ids that are paths', async () => {
    await expect(client.call('runs.get', { runId: 'no-such-run' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(client.call('runs.get', { runId: '../../etc' })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(
      client.call('runs.start', { suite: join(tmp.path, 'nowhere'), policy: 'oracle' }, { timeoutMs: 60_000 }),
    ).rejects.toThrow(/no such file or folder/);
    expect(await client.call('runs.cancel', { runId: 'no-such-run' })).toEqual({ cancelled: false });
  }, 60_000);
});
