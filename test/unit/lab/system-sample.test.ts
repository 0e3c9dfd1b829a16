/**
 * A run's system sample, read from the real machine: memory, resident size, disk and load each time; CPU
 * share from the second on; bubblewrap sandboxes once this process has watched one; each NVIDIA GPU as
 * nvidia-smi reports it, and no GPU field at all where there is no nvidia-smi.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { systemSampler } from '../../../electron/lab/system-sample';
import { gpuUsage, gpuUsageSync, parseGpuUsage, resetGpuUsage } from '../../../electron/lab/system/gpus';
import { defaultLimits } from '../../../native/sandbox/limits';
import { watchSandbox } from '../../../native/sandbox/monitor';
import { makeTempDir } from '../../helpers/tmp';

const GB = 1024 ** 3;
const path = process.env.PATH;

/** PATH with only a folder of our own: a fake nvidia-smi there, or none. */
function pathWith(script: string | null): { remove(): void } {
  const dir = makeTempDir('t1lab-fake-smi-');
  if (script !== null) {
    writeFileSync(join(dir.path, 'nvidia-smi'), `#!/bin/sh\n${script}\n`);
    chmodSync(join(dir.path, 'nvidia-smi'), 0o755);
  }
  process.env.PATH = dir.path;
  resetGpuUsage();
  return dir;
}

afterEach(() => {
  process.env.PATH = path;
  resetGpuUsage();
});

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
    expect(s.mem_used_gb).toBeLessThanOrEqual(totalmem() / GB);
    // This process's resident memory, as the kernel counts it.
    expect(s.rss_gb).toBeGreaterThan(0);
    expect(Math.abs(s.rss_gb - process.memoryUsage().rss / GB)).toBeLessThan(0.1);
    expect(s.disk_free_gb).toBeGreaterThan(0);
    expect(s.load1).toBeGreaterThanOrEqual(0);
    expect(s.cpu_percent).toBeGreaterThan(0);
    expect(s.cpu_percent).toBeLessThanOrEqual(100);
  });

  test('a folder that cannot be read leaves the disk out, not the sample', () => {
    expect(systemSampler('/no/such/folder')().disk_free_gb).toBeUndefined();
  });

  test('sandboxes: alive now and started since the previous sample', () => {
    const sample = systemSampler(tmpdir(), { gpu: false });
    const target = {
      rootPid: process.pid,
      mode: 'run' as const,
      limits: defaultLimits(),
      workspace: tmpdir(),
      workdir: '/app',
      workspaceAllowance: 1e12,
      cgroup: null,
      nprocEnforced: true,
      onFire: () => {},
    };
    const stopA = watchSandbox(target);
    const stopB = watchSandbox(target);
    expect(sample()).toMatchObject({ sandboxes: 2, sandboxes_started: 2 });
    stopA();
    expect(sample()).toMatchObject({ sandboxes: 1, sandboxes_started: 0 });
    stopB();
    expect(sample()).toMatchObject({ sandboxes: 0, sandboxes_started: 0 });
  });

  test('no nvidia-smi: no GPU field (absent, not zero), and it is not asked again', async () => {
    pathWith(null);
    expect(gpuUsageSync()).toBeNull();
    expect(await gpuUsage()).toBeNull();
    expect('gpu' in systemSampler(tmpdir())()).toBe(false);
  });

  test("a GPU: each one's use and memory as nvidia-smi reports them, blocking or not", async () => {
    const dir = pathWith(`printf '0, 37, 2048, 81559\\n1, 100, 40960, 81559\\n'`);
    const sample = systemSampler(tmpdir())();
    expect(sample.gpu).toEqual([
      { util_percent: 37, mem_used_gb: 2, mem_total_gb: 79.65 },
      { util_percent: 100, mem_used_gb: 40, mem_total_gb: 79.65 },
    ]);
    expect(await gpuUsage()).toEqual(sample.gpu);
    dir.remove();
  });

  test("nvidia-smi's CSV: rows it cannot read are left out", () => {
    expect(parseGpuUsage('0, [N/A], 100, 1024\n1, 5, 512, 1024\n\nNVIDIA-SMI has failed\n')).toEqual([
      { util_percent: 5, mem_used_gb: 0.5, mem_total_gb: 1 },
    ]);
  });
});
