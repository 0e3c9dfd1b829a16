/**
 * The machine over a run's life, as plain data: one sample every few seconds of an evaluation (a line of
 * the run folder's `system.jsonl`) or once per training step (a metrics row's `sys`), and the summary a
 * reader wants first (mean CPU, peak memory, peak sandboxes). Fields a machine cannot give are absent,
 * never zero: no `gpu` without an NVIDIA GPU, no `cpu_percent` on the first sample.
 */
import { z } from 'zod';

export const GpuSample = z.object({ util_percent: z.number(), mem_used_gb: z.number(), mem_total_gb: z.number() });
export type GpuSample = z.infer<typeof GpuSample>;

/** What every sample holds (the training rows' `sys` too). */
export const SystemSample = z.object({
  /** Busy share of every core since the previous sample, in percent (absent on the first). */
  cpu_percent: z.number().optional(),
  mem_used_gb: z.number(),
  /** Resident memory of the sampling process (the eval runner, the trainer). */
  rss_gb: z.number(),
  /** Free space on the run folder's file system (absent where it cannot be read). */
  disk_free_gb: z.number().optional(),
  load1: z.number(),
  /** Bubblewrap sandboxes alive in the sampling process (absent until it has started one). */
  sandboxes: z.number().int().optional(),
  /** Bubblewrap sandboxes it started since the previous sample (absent until it has started one). */
  sandboxes_started: z.number().int().optional(),
  /** Each NVIDIA GPU in nvidia-smi's order (absent without one). */
  gpu: z.array(GpuSample).optional(),
});
export type SystemSample = z.infer<typeof SystemSample>;

/** A line of an evaluation's `system.jsonl`: when, the sample, and the episodes running then. */
export const RunSystemSample = SystemSample.extend({
  /** ISO time of the sample. */
  t: z.string(),
  /** Episodes of the run running at that moment (any backend: bubblewrap, containers, remote hosts). */
  episodes: z.number().int().optional(),
});
export type RunSystemSample = z.infer<typeof RunSystemSample>;

export const SystemSummary = z.object({
  samples: z.number().int(),
  /** First to last sample, seconds. */
  spanS: z.number(),
  cpuPercentMean: z.number().nullable(),
  cpuPercentPeak: z.number().nullable(),
  memUsedGbPeak: z.number(),
  rssGbPeak: z.number(),
  diskFreeGbMin: z.number().nullable(),
  load1Peak: z.number(),
  episodesPeak: z.number().nullable(),
  sandboxesPeak: z.number().nullable(),
  sandboxesStarted: z.number().nullable(),
  /** Over every GPU and sample; absent without a GPU. */
  gpuUtilPercentMean: z.number().optional(),
  gpuMemUsedGbPeak: z.number().optional(),
});
export type SystemSummary = z.infer<typeof SystemSummary>;

const round = (v: number, digits: number) => Number(v.toFixed(digits));

function present(values: (number | undefined)[]): number[] {
  return values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
}

const peak = (xs: number[]) => (xs.length ? Math.max(...xs) : null);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** Mean CPU, peaks of memory, load, episodes, sandboxes and GPU, least free disk; null for no sample. */
export function summarizeSystem(samples: readonly RunSystemSample[]): SystemSummary | null {
  if (!samples.length) return null;
  const times = present(samples.map((s) => Date.parse(s.t)));
  const cpu = present(samples.map((s) => s.cpu_percent));
  const cpuMean = mean(cpu);
  const gpus = samples.flatMap((s) => s.gpu ?? []);
  const started = present(samples.map((s) => s.sandboxes_started));
  const summary: SystemSummary = {
    samples: samples.length,
    spanS: times.length ? round((Math.max(...times) - Math.min(...times)) / 1000, 1) : 0,
    cpuPercentMean: cpuMean === null ? null : round(cpuMean, 1),
    cpuPercentPeak: peak(cpu),
    memUsedGbPeak: peak(samples.map((s) => s.mem_used_gb)) ?? 0,
    rssGbPeak: peak(samples.map((s) => s.rss_gb)) ?? 0,
    diskFreeGbMin: present(samples.map((s) => s.disk_free_gb)).reduce<number | null>(
      (m, v) => (m === null ? v : Math.min(m, v)),
      null,
    ),
    load1Peak: peak(samples.map((s) => s.load1)) ?? 0,
    episodesPeak: peak(present(samples.map((s) => s.episodes))),
    sandboxesPeak: peak(present(samples.map((s) => s.sandboxes))),
    sandboxesStarted: started.length ? started.reduce((a, b) => a + b, 0) : null,
  };
  if (gpus.length) {
    summary.gpuUtilPercentMean = round(mean(gpus.map((g) => g.util_percent)) ?? 0, 1);
    summary.gpuMemUsedGbPeak = peak(gpus.map((g) => g.mem_used_gb)) ?? 0;
  }
  return summary;
}

/** The charts of a run's samples, in order: the key in a sample (GPU keys per GPU) and what it measures. */
export function systemSeriesKeys(samples: readonly RunSystemSample[]): { key: string; title: string }[] {
  const has = (f: (s: RunSystemSample) => unknown) => samples.some((s) => f(s) !== undefined);
  const keys: { key: string; title: string }[] = [];
  if (has((s) => s.cpu_percent)) keys.push({ key: 'cpu_percent', title: 'CPU busy, % of all cores' });
  keys.push({ key: 'mem_used_gb', title: 'memory in use, GB' }, { key: 'rss_gb', title: 'eval process RSS, GB' });
  if (has((s) => s.disk_free_gb)) keys.push({ key: 'disk_free_gb', title: 'free disk under the run folder, GB' });
  keys.push({ key: 'load1', title: 'load, 1 min' });
  if (has((s) => s.episodes)) keys.push({ key: 'episodes', title: 'episodes running' });
  if (has((s) => s.sandboxes)) keys.push({ key: 'sandboxes', title: 'sandboxes alive' });
  const gpus = Math.max(0, ...samples.map((s) => s.gpu?.length ?? 0));
  for (let i = 0; i < gpus; i++)
    keys.push(
      { key: `gpu.${i}.util_percent`, title: `GPU ${i} busy, %` },
      { key: `gpu.${i}.mem_used_gb`, title: `GPU ${i} memory in use, GB` },
    );
  return keys;
}

/** A sample's value under a key of systemSeriesKeys (`gpu.0.util_percent` reaches into the GPU list). */
export function systemValue(sample: RunSystemSample, key: string): number | undefined {
  const gpu = /^gpu\.(\d+)\.(util_percent|mem_used_gb)$/.exec(key);
  if (gpu) return sample.gpu?.[Number(gpu[1])]?.[gpu[2] as 'util_percent' | 'mem_used_gb'];
  const v = (sample as Record<string, unknown>)[key];
  return typeof v === 'number' ? v : undefined;
}
