/**
 * The machine as a training step ends: CPU busy share since the previous sample (all cores), memory in use,
 * this process's resident memory, free disk under the run's folder, and the 1-minute load. Logged in each
 * metrics row as `sys` (charted as `sys.cpu_percent`, … in the Training page's system group), so a run's
 * resources read beside its losses. GPU and sandbox counts are not sampled here.
 */
import { statfsSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';

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

export interface SystemSample {
  /** Busy share of every core since the previous sample, in percent (absent on the first). */
  cpu_percent?: number;
  mem_used_gb: number;
  rss_gb: number;
  /** Free space on the run folder's file system (absent where it cannot be read). */
  disk_free_gb?: number;
  load1: number;
}

/** A sampler for one run: each call covers the time since the previous one. */
export function systemSampler(dir: string): () => SystemSample {
  let last: CpuTimes | null = cpuTimes();
  return () => {
    const now = cpuTimes();
    const sample: SystemSample = { mem_used_gb: round((totalmem() - freemem()) / GB, 3), rss_gb: round(process.memoryUsage().rss / GB, 3), load1: round(loadavg()[0] ?? 0, 2) };
    if (last && now.total > last.total) sample.cpu_percent = round((100 * (now.busy - last.busy)) / (now.total - last.total), 1);
    last = now;
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
