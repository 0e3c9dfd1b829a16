/** NVIDIA GPUs as nvidia-smi reports them; an empty list where there is no nvidia-smi or no GPU. */
import type { GpuInfo } from '../../domain/system';
import { execQuiet } from '../../../native/util/exec';

export async function listNvidiaGpus(): Promise<GpuInfo[]> {
  const r = await execQuiet('nvidia-smi', ['--query-gpu=index,name,memory.total,driver_version', '--format=csv,noheader,nounits'], { timeoutMs: 10_000 });
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
