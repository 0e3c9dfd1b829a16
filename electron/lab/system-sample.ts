/**
 * The machine now: CPU busy share since the previous sample (all cores), memory in use, this process's
 * resident memory, free disk under the run's folder, the 1-minute load, this process's bubblewrap sandboxes
 * (alive, and started since the previous sample) and each NVIDIA GPU's use. Logged in each training metrics
 * row as `sys` (charted as `sys.cpu_percent`, … in the Training page's system group) and every few seconds
 * of an evaluation into its `system.jsonl` (runs/system-log.ts).
 */
import { statfsSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { watchedCount, watchedEver } from '../../native/sandbox/monitor';
import type { SystemSample } from '../domain/system-samples';
import { gpuUsageSync } from './system/gpus';

export type { SystemSample };

const GB = 1024 ** 3;

interface CpuTimes {
  busy: number;
  total: number;
}

function cpuTimes(): CpuTimes {
  let busy = 0;
  let total = 0;
  for (const c of cpus()) {
    const t = c.times;
    const all = t.user + t.nice + t.sys + t.idle + t.irq;
    busy += all - t.idle;
    total += all;
  }
  return { busy, total };
}

const round = (v: number, digits: number) => Number(v.toFixed(digits));

export interface SamplerOptions {
  /** Ask nvidia-smi here, blocking (default true); false where the caller asks it off the event loop (gpuUsage). */
  gpu?: boolean;
}

/** A sampler for one run: each call covers the time since the previous one. */
export function systemSampler(dir: string, options: SamplerOptions = {}): () => SystemSample {
  let last: CpuTimes | null = cpuTimes();
  let lastStarted = watchedEver();
  return () => {
    const now = cpuTimes();
    const sample: SystemSample = {
      mem_used_gb: round((totalmem() - freemem()) / GB, 3),
      rss_gb: round(process.memoryUsage().rss / GB, 3),
      load1: round(loadavg()[0] ?? 0, 2),
    };
    if (last && now.total > last.total)
      sample.cpu_percent = round((100 * (now.busy - last.busy)) / (now.total - last.total), 1);
    last = now;
    const started = watchedEver();
    if (started > 0) {
      sample.sandboxes = watchedCount();
      sample.sandboxes_started = started - lastStarted;
    }
    lastStarted = started;
    if (options.gpu !== false) {
      const gpu = gpuUsageSync();
      if (gpu) sample.gpu = gpu;
    }
    try {
      const fs = statfsSync(dir);
      sample.disk_free_gb = round((fs.bavail * fs.bsize) / GB, 2);
    } catch {
      // not readable: left out
    }
    return sample;
  };
}

const samplers = new Map<string, () => SystemSample>();

/** The next sample of a run's folder's sampler (made on first use). */
export function sampleSystem(dir: string): SystemSample {
  let sampler = samplers.get(dir);
  if (!sampler) samplers.set(dir, (sampler = systemSampler(dir)));
  return sampler();
}
