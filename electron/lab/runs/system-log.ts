/**
 * An evaluation's `system.jsonl`: a sample of the machine every few seconds while the run runs (CPU, memory,
 * the runner's RSS, free disk under the run folder, load, its episodes and sandboxes, each NVIDIA GPU), one
 * JSON object a line with its time `t`. Each line is appended and fsync'd as it is taken, so a killed run
 * keeps every sample it had and a resumed run appends to the same file. A torn last line is skipped on read.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { RunSystemSample, summarizeSystem, type SystemSummary } from '../../domain/system-samples';
import { systemSampler } from '../system-sample';
import { gpuUsage } from '../system/gpus';

export const SYSTEM_FILE = 'system.jsonl';
/** How often a running evaluation samples the machine (T1LAB_SYSTEM_SAMPLE_MS overrides it, at least 50 ms). */
export const SYSTEM_SAMPLE_MS = 2_000;
const MIN_SAMPLE_MS = 50;

export function systemSampleMs(env: NodeJS.ProcessEnv = process.env): number {
  const asked = Number(env.T1LAB_SYSTEM_SAMPLE_MS);
  return Number.isFinite(asked) && asked > 0 ? Math.max(MIN_SAMPLE_MS, asked) : SYSTEM_SAMPLE_MS;
}

export interface SystemLog {
  /** Take a last sample, write it and close the file (the timer stops). */
  stop(): Promise<void>;
}

export interface SystemLogOptions {
  /** Episodes of the run running now. */
  episodes(): number;
  intervalMs?: number;
  /** The clock of each sample's `t` (tests). */
  now?: () => Date;
}

/** Sample now, then every intervalMs until stop(); each line appended and fsync'd. */
export function startSystemLog(runDir: string, options: SystemLogOptions): SystemLog {
  const path = join(runDir, SYSTEM_FILE);
  const fd = openSync(path, 'a');
  // A line torn by a kill stays alone on its line: the next sample starts on a fresh one.
  if (existsSync(path) && !endsWithNewline(path)) writeSync(fd, '\n');
  const sample = systemSampler(runDir, { gpu: false });
  const now = options.now ?? (() => new Date());
  let closed = false;
  let first = true;
  let pending: Promise<void> = Promise.resolve();
  const take = async (): Promise<void> => {
    const t = now().toISOString();
    const line: RunSystemSample = { t, ...sample(), episodes: options.episodes() };
    // The CPU share of the first covers the instant since the sampler was made: noise, left out.
    if (first) delete line.cpu_percent;
    first = false;
    // nvidia-smi off the event loop: the episodes' shells and timers go on meanwhile.
    const gpu = await gpuUsage();
    if (gpu) line.gpu = gpu;
    if (closed) return;
    writeSync(fd, `${JSON.stringify(line)}\n`);
    fsyncSync(fd);
  };
  // One sample at a time, in order; a sample that fails (a full disk) is lost, not the run.
  const queue = () => (pending = pending.then(take).catch(() => {}));
  queue();
  const timer = setInterval(queue, options.intervalMs ?? systemSampleMs());
  timer.unref();
  return {
    async stop() {
      if (closed) return;
      clearInterval(timer);
      queue();
      await pending;
      closed = true;
      closeSync(fd);
    },
  };
}

function endsWithNewline(path: string): boolean {
  const text = readFileSync(path, 'utf8');
  return text === '' || text.endsWith('\n');
}

/** Every whole sample of a run folder; none for a run without the file (runs made before it existed). */
export function readSystemLog(runDir: string): RunSystemSample[] {
  const path = join(runDir, SYSTEM_FILE);
  if (!existsSync(path)) return [];
  const out: RunSystemSample[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const parsed = RunSystemSample.safeParse(JSON.parse(line));
      if (parsed.success) out.push(parsed.data);
    } catch {
      // a torn line (the run was killed mid-write): skipped
    }
  }
  return out;
}

/** A run folder's samples and their summary (null without samples). */
export function runSystem(runDir: string): { samples: RunSystemSample[]; summary: SystemSummary | null } {
  const samples = readSystemLog(runDir);
  return { samples, summary: summarizeSystem(samples) };
}

/** A training run's samples: the `sys` of each metrics.jsonl row, at the row's wall_time. */
export function readTrainingSystem(runDir: string): RunSystemSample[] {
  const path = join(runDir, 'metrics.jsonl');
  if (!existsSync(path)) return [];
  const out: RunSystemSample[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const row = JSON.parse(line) as { wall_time?: unknown; sys?: unknown };
      if (typeof row.wall_time !== 'number' || !row.sys || typeof row.sys !== 'object') continue;
      const parsed = RunSystemSample.safeParse({ ...row.sys, t: new Date(row.wall_time * 1000).toISOString() });
      if (parsed.success) out.push(parsed.data);
    } catch {
      // a torn line: skipped
    }
  }
  return out;
}
