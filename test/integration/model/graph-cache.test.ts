/** Training sessions are cached per shape bucket, reused, evicted least-recently-used, and logged with their timings. */
import { describe, expect, it } from 'vitest';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import { sftLoss } from '../../../native/model/losses';
import { tinyConfig } from '../../helpers/tiny-model';

describe('training graph cache', () => {
  it('reuses a session per shape bucket and evicts the least recently used', async () => {
    const logs: string[] = [];
    const cache = new TrainingGraphCache(tinyConfig(), {
      provider: 'cpu',
      intraOpThreads: 1,
      capacity: 2,
      log: (m) => logs.push(m),
    });
    const a = await cache.get({ batch: 2, length: 13, forcedRouting: false, loss: sftLoss });
    const again = await cache.get({ batch: 2, length: 16, forcedRouting: false, loss: sftLoss });
    expect(again).toBe(a);
    expect(a.length).toBe(16);
    await cache.get({ batch: 2, length: 13, forcedRouting: true, loss: sftLoss });
    await cache.get({ batch: 1, length: 5, forcedRouting: false, loss: null });
    expect(cache.counts).toEqual({ hits: 1, misses: 3, size: 2 });
    expect(logs).toHaveLength(3);
    expect(logs[0]).toMatch(
      /training graph B2-T16-float32-sparse-topk-sft: \d+ nodes, .* built in \d+ ms; session on cpu in \d+ ms/,
    );
    await expect(a.placement.session.run({})).rejects.toThrow(/released/);
    await cache.clear();
  });
});
