/** A training run's system sample: memory, resident size, disk and load each step; CPU share from the second on. */
import { tmpdir } from 'node:os';
import { describe, expect, test } from 'vitest';
import { systemSampler } from '../../../electron/lab/system-sample';

describe('system sample', () => {
  test('memory, disk and load every time; the CPU share covers the time since the previous sample', () => {
    const sample = systemSampler(tmpdir());
    // Busy for 60 ms: the CPU counters (10 ms ticks) move between the two samples.
    let spin = 0;
    const until = Date.now() + 60;
    while (Date.now() < until) spin++;
    expect(spin).toBeGreaterThan(0);
    const s = sample();
    expect(s.mem_used_gb).toBeGreaterThan(0);
    expect(s.rss_gb).toBeGreaterThan(0);
    expect(s.disk_free_gb).toBeGreaterThan(0);
    expect(s.load1).toBeGreaterThanOrEqual(0);
    expect(s.cpu_percent).toBeGreaterThanOrEqual(0);
    expect(s.cpu_percent).toBeLessThanOrEqual(100);
  });
  test('a folder that cannot be read leaves the disk out, not the sample', () => {
    expect(systemSampler('/no/such/folder')().disk_free_gb).toBeUndefined();
  });
});
