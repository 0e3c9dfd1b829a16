/**
 * `hosts check`: what each host is and holds, asked through the Engine API: reachable or not (and why),
 * the engine and its version, rootless or not, cores and memory, the slots the lab uses there, this
 * install's containers on it (running and all), and the task images cached there. Plain data, the same
 * for the CLI and the System page.
 */
import { EngineClient, type HostConfig, type SweepResult } from '../../../native/sandbox/container/api/client';
import type { EngineHostReport } from '../../domain/system';
import { installId, listHosts } from './store';

/** The report of one host (the contract's schema: the System page shows the same). */
export type HostReport = EngineHostReport;

export async function checkHost(config: HostConfig, installId: string): Promise<HostReport> {
  const started = performance.now();
  const base = { name: config.name, url: config.url, slots: config.slots, enabled: config.enabled !== false };
  const empty = {
    engine: null,
    version: null,
    apiVersion: null,
    rootless: null,
    cores: null,
    memoryBytes: null,
    labContainers: null,
    taskImages: [],
  };
  try {
    const client = new EngineClient(config);
    const info = await client.engineInfo(true);
    const [containers, taskImages] = await Promise.all([client.labContainers(installId), client.taskImages()]);
    return {
      ...base,
      reachable: true,
      error: null,
      engine: info.engine,
      version: info.version,
      apiVersion: info.apiVersion,
      rootless: info.rootless,
      cores: info.cores,
      memoryBytes: info.memoryBytes,
      labContainers: { running: containers.filter((c) => c.State === 'running').length, total: containers.length },
      taskImages,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    return {
      ...base,
      ...empty,
      reachable: false,
      error: (error as Error).message.replace(/^host '[^']*': /, ''),
      durationMs: Math.round(performance.now() - started),
    };
  }
}

export interface HostSweep {
  name: string;
  /** null when the host could not be reached (its error says why). */
  removed: SweepResult | null;
  error: string | null;
}

/** Sweep every host given; an unreachable one is reported, never fatal. */
export async function sweepHosts(hosts: HostConfig[], installId: string): Promise<HostSweep[]> {
  return Promise.all(
    hosts.map(async (h) => {
      try {
        const client = new EngineClient(h);
        await client.engineInfo();
        return { name: h.name, removed: await client.sweep(installId), error: null };
      } catch (error) {
        return { name: h.name, removed: null, error: (error as Error).message.replace(/^host '[^']*': /, '') };
      }
    }),
  );
}

/** Every configured host, asked at once (the System page's `system.hosts`). */
export function checkAllHosts(dataDir: string): Promise<HostReport[]> {
  const id = installId(dataDir);
  return Promise.all(listHosts(dataDir).map((h) => checkHost(h, id)));
}
