/**
 * The policy worker as the harness and the app use it (a real forked process): concurrent episodes decoded
 * in batches with routing for every token, weights swapped between steps, cancellation, clean shutdown.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initCheckpoint } from '../../../electron/lab/models/operations';
import { createOnnxPolicyEngine, policyWorker } from '../../../electron/lab/models/policy-engine';
import { WorkerRegistry } from '../../../electron/lab/worker-registry';
import { forkLauncher } from '../../../electron/processes/launcher';
import type { OnnxPolicyEngine } from '../../../native/model/policy-api';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-policy-');
const small = { vocab_size: 400, num_hidden_layers: 2, max_position_embeddings: 128 };
const a = join(tmp.path, 'a');
const b = join(tmp.path, 'b');
const workers = new WorkerRegistry(forkLauncher);
let engine: OnnxPolicyEngine;

beforeAll(async () => {
  initCheckpoint({ preset: 'nano', out: a, seed: 1, overrides: small, corpus: [] });
  initCheckpoint({ preset: 'nano', out: b, seed: 2, overrides: small, corpus: [] });
  engine = await createOnnxPolicyEngine(policyWorker(workers), a, { provider: 'auto', intraOpThreads: 1 });
}, 60_000);
afterAll(async () => {
  await engine?.close();
  await workers.stopAll();
  tmp.remove();
});

describe('policy worker', () => {
  it('reports where it runs and why', async () => {
    const info = await engine.info();
    expect(info.kind).toBe('t1-moe');
    expect(info.provider).toBe('cpu');
    expect(info.providerFallbackReason).toMatch(/NVIDIA|CUDA/);
    expect(info.eosTokenIds.length).toBeGreaterThan(0);
  });

  it('decodes concurrent episodes together, each token with id, log-prob and routing', async () => {
    const results = await Promise.all(
      [0, 1, 2, 3].map((i) => engine.generate([5 + i, 6, 7], { maxTokens: 10, seed: i })),
    );
    expect(results.some((r) => r.timing.meanBatch > 1.5)).toBe(true);
    for (const r of results) {
      expect(r.tokens).toHaveLength(10);
      expect(r.promptRouting).toHaveLength(3);
      for (const t of r.tokens) {
        expect(Number.isFinite(t.logprob)).toBe(true);
        expect(t.routing!.experts).toHaveLength(2);
        expect(t.routing!.gates[0]!.reduce((s, g) => s + g, 0)).toBeCloseTo(1, 5);
      }
    }
    const again = await engine.generate([5, 6, 7], { maxTokens: 10, seed: 0 });
    expect(again.tokens.map((t) => t.id)).toEqual(results[0]!.tokens.map((t) => t.id));
  });

  it('swaps weights between steps: new tokens come from the new weights', async () => {
    const before = await engine.generate([9, 8, 7], { maxTokens: 8, seed: 5, temperature: 0 });
    const info = await engine.swapWeights(b);
    expect(info.weightsVersion).toBe(2);
    const after = await engine.generate([9, 8, 7], { maxTokens: 8, seed: 5, temperature: 0 });
    const fresh = await createOnnxPolicyEngine(policyWorker(workers), b, { provider: 'cpu', intraOpThreads: 1 });
    const direct = await fresh.generate([9, 8, 7], { maxTokens: 8, seed: 5, temperature: 0 });
    await fresh.close();
    expect(after.tokens.map((t) => t.id)).toEqual(direct.tokens.map((t) => t.id));
    expect(after.tokens.map((t) => t.logprob)).not.toEqual(before.tokens.map((t) => t.logprob));
  });

  it('a killed policy worker is restarted with the checkpoint and the swapped weights, and the call retried', async () => {
    await engine.swapWeights(b);
    const before = await engine.generate([3, 1, 4], { maxTokens: 6, seed: 2, temperature: 0 });
    const pid = workers.list().find((w) => w.name === 'policy')!.pid!;
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    const after = await engine.generate([3, 1, 4], { maxTokens: 6, seed: 2, temperature: 0 });
    expect(workers.list().find((w) => w.name === 'policy')!.pid).not.toBe(pid);
    expect(after.tokens.map((t) => t.id)).toEqual(before.tokens.map((t) => t.id));
    expect(after.tokens.map((t) => t.logprob)).toEqual(before.tokens.map((t) => t.logprob));
  });

  it('cancels a generation and keeps serving others', async () => {
    const controller = new AbortController();
    const long = engine.generate([1, 2, 3], { maxTokens: 120, seed: 1 }, controller.signal);
    const short = engine.generate([4, 5], { maxTokens: 5, seed: 1 });
    setTimeout(() => controller.abort(), 20);
    await expect(long).rejects.toMatchObject({ code: 'CANCELLED' });
    expect((await short).tokens).toHaveLength(5);
  });

  it('rejects a bad request with the reason', async () => {
    await expect(engine.generate([100_000], { maxTokens: 3 })).rejects.toThrow(/outside the vocabulary/);
  });
});
