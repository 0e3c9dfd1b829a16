/** NVIDIA GPUs as nvidia-smi reports them; an empty list where there is no nvidia-smi or no GPU. */
import type { GpuInfo } from '../../domain/system';
import { execFileSync } from 'node:child_process';
import { execQuiet } from '../../../native/util/exec';

export async function listNvidiaGpus(): Promise<GpuInfo[]> {
  const r = await execQuiet(
    'nvidia-smi',
    ['--query-gpu=index,name,memory.total,driver_version', '--format=csv,noheader,nounits'],
    { timeoutMs: 10_000 },
  );
  if (!r.ok) return [];
  return parseNvidiaSmi(r.stdout);
}

export function parseNvidiaSmi(csv: string): GpuInfo[] {
  return csv
    .split('\n')
    .map((line) => line.split(',').map((s) => s.trim()))
    .filter((cells) => cells.length >= 3 && /^\d+$/.test(cells[0] ?? ''))
    .map(([index, name, memMiB, driver]) => ({
      index: Number(index),
      name: name ?? 'unknown',
      memoryBytes: Number(memMiB) * 1024 * 1024,
      driverVersion: driver || null,
    }));
}

/** What each GPU is doing now: busy share and memory in use (for system samples; no name, no driver). */
export interface GpuUsage {
  util_percent: number;
  mem_used_gb: number;
  mem_total_gb: number;
}

const USAGE_QUERY = ['--query-gpu=index,utilization.gpu,memory.used,memory.total', '--format=csv,noheader,nounits'];
/** nvidia-smi answers in tens of milliseconds; one that hangs (a wedged driver) must not stall a sample. */
const USAGE_TIMEOUT_MS = 2_000;
/** After a failed query (no GPU, driver error) the next is tried only this much later; no nvidia-smi at all is never tried again. */
const RETRY_AFTER_FAILURE_MS = 60_000;
const GIB = 1024;

/** nvidia-smi's CSV (MiB) to usage per GPU in its order; rows it cannot read ("[N/A]") are left out. */
export function parseGpuUsage(csv: string): GpuUsage[] {
  const out: GpuUsage[] = [];
  for (const line of csv.split('\n')) {
    const [index, util, used, total] = line.split(',').map((s) => s.trim());
    if (!/^\d+$/.test(index ?? '')) continue;
    const [u, m, t] = [Number(util), Number(used), Number(total)];
    if (![u, m, t].every(Number.isFinite) || util === '' || used === '' || total === '') continue;
    out.push({
      util_percent: u,
      mem_used_gb: Number((m / GIB).toFixed(3)),
      mem_total_gb: Number((t / GIB).toFixed(2)),
    });
  }
  return out;
}

let missing = false;
let failedAt = -Infinity;

function usable(now: number): boolean {
  return !missing && now - failedAt >= RETRY_AFTER_FAILURE_MS;
}

function settle(gpus: GpuUsage[] | null, notFound: boolean): GpuUsage[] | null {
  if (notFound) missing = true;
  else if (!gpus?.length) failedAt = performance.now();
  return gpus?.length ? gpus : null;
}

/** Usage of every NVIDIA GPU, or null where there is none (no nvidia-smi, no GPU, a failed query). */
export async function gpuUsage(): Promise<GpuUsage[] | null> {
  if (!usable(performance.now())) return null;
  const r = await execQuiet('nvidia-smi', USAGE_QUERY, { timeoutMs: USAGE_TIMEOUT_MS });
  return settle(r.ok ? parseGpuUsage(r.stdout) : null, r.spawnError?.startsWith('ENOENT') ?? false);
}

/** gpuUsage, blocking (a training step's sample, once per step). */
export function gpuUsageSync(): GpuUsage[] | null {
  if (!usable(performance.now())) return null;
  try {
    return settle(
      parseGpuUsage(
        execFileSync('nvidia-smi', USAGE_QUERY, {
          encoding: 'utf8',
          timeout: USAGE_TIMEOUT_MS,
          stdio: ['ignore', 'pipe', 'ignore'],
        }),
      ),
      false,
    );
  } catch (error) {
    return settle(null, (error as NodeJS.ErrnoException).code === 'ENOENT');
  }
}

/** Forget what earlier queries found (tests put a fake nvidia-smi on PATH). */
export function resetGpuUsage(): void {
  missing = false;
  failedAt = -Infinity;
}
