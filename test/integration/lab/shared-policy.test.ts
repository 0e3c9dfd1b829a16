/**
 * One policy worker per host, each checkpoint loaded once: the Models page samples a checkpoint, then an onnx
 * evaluation of the same checkpoint runs in the eval worker, whose policy calls go through the host to the
 * host's policy worker. Before, the eval worker forked a policy worker of its own and loaded the weights again.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../../electron/ipc/common/client';
import type { LabContract } from '../../../electron/ipc/common/contract';
import { createMemoryPair } from '../../../electron/ipc/common/memory';
import type { RunProgress } from '../../../electron/domain/runs';
import type { Trajectory } from '../../../electron/domain/trajectory';
import { createLabHost, type LabHost } from '../../../electron/lab/host';
import { initCheckpoint } from '../../../electron/lab/models/operations';
import { forkLauncher } from '../../../electron/processes/launcher';
import { writeSuite } from '../../helpers/tasks';
import { makeTempDir } from '../../helpers/tmp';

/** Live processes below this test process that run the named worker (T1LAB_WORKER in their environment). */
function workerProcesses(name: string): number[] {
  const parent = new Map<number, number>();
  for (const p of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'latin1');
      parent.set(Number(p), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const ours = (pid: number) => {
    for (let p = parent.get(pid), d = 0; p !== undefined && p > 1 && d < 64; p = parent.get(p), d++)
      if (p === process.pid) return true;
    return false;
  };
  return [...parent.keys()].filter((pid) => {
    if (!ours(pid)) return false;
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
      // A worker's own children (e.g. a shell it spawns) inherit its environment: count the worker only.
      return env.includes(`T1LAB_WORKER=${name}`) && readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(`${name}`);
    } catch {
      return false;
    }
  });
}

describe('one policy worker per host', () => {
  const tmp = makeTempDir('t1lab-shared-policy-');
  const checkpoint = join(tmp.path, 'nano');
  let host: LabHost;
  let client: Client<LabContract>;
  let suite: string;

  beforeAll(() => {
    initCheckpoint({ preset: 'nano', out: checkpoint, seed: 1, overrides: { num_hidden_layers: 2 }, corpus: [] });
    suite = writeSuite(join(tmp.path, 'suite'));
    host = createLabHost({ dataDir: join(tmp.path, 'data'), launcher: forkLauncher, log: () => {} });
    const pair = createMemoryPair();
    host.attach(pair.server);
    client = createClient<LabContract>(pair.client);
  }, 60_000);
  afterAll(async () => {
    await host.dispose();
    tmp.remove();
  });

  it('the Models page and an onnx evaluation of the same checkpoint share the host policy worker', async () => {
    const sample = await client.call(
      'models.sample',
      { path: checkpoint, prompt: 'hello', maxTokens: 4, seed: 1, provider: 'cpu' },
      { timeoutMs: 120_000 },
    );
    expect(sample.tokens).toHaveLength(4);
    expect(workerProcesses('policy')).toHaveLength(1);

    const finished = new Promise<RunProgress>((resolve) => {
      client.on('runs.progress', (p) => {
        if (p.state !== 'running') resolve(p);
      });
    });
    const { runDir } = await client.call(
      'runs.start',
      {
        suite,
        policy: `onnx:${checkpoint}`,
        policySettings: { maxTokens: 16, seed: 7 },
        harness: { maxTurns: 1, contextStrategy: 'drop-oldest', observationChars: 2000 },
        attempts: 1,
        concurrency: 1,
      },
      { timeoutMs: 120_000 },
    );
    const end = await finished;
    expect(end.state).toBe('done');
    // The episodes really sampled from the checkpoint (token ids and log-probs came back through the bridge).
    const episodes = readdirSync(join(runDir, 'episodes'));
    expect(episodes.length).toBeGreaterThan(0);
    const t = JSON.parse(readFileSync(join(runDir, 'episodes', episodes[0]!, 'trajectory.json'), 'utf8')) as Trajectory;
    expect(t.turns[0]?.tokens?.ids.length).toBeGreaterThan(0);
    // Still one policy process: the eval worker started none of its own.
    expect(workerProcesses('eval')).toHaveLength(1);
    expect(workerProcesses('policy')).toHaveLength(1);
  });
});
