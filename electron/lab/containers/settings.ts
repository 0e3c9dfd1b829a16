/**
 * Container settings of a run: the backend choice, the base-image map (from `--base-image A=B` and the
 * config file `$T1LAB_HOME/containers.json`), and the agent's network switch. Plain data: it goes into the
 * run manifest as it was used.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { LabError } from '../../ipc/common/errors';
import { labDataDir } from '../paths';
import type { HostConfig } from '../../../native/sandbox/container/api/client';

export const BACKEND_CHOICES = ['auto', 'bubblewrap', 'podman', 'docker'] as const;
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

/** The config file's shape: `{ "engine": "podman", "baseImages": { "python:3.13-slim-bookworm": "localhost/t1lab-base:bookworm", "*": "..." } }`. */
export const ContainersConfig = z.object({
  engine: z.enum(['podman', 'docker']).optional(),
  /** FROM image -> local image; the key "*" stands for every image that is neither local nor pullable. */
  baseImages: z.record(z.string(), z.string()).optional(),
  /** Try `pull` for images that are not local (default true; false on machines known to be offline). */
  pull: z.boolean().optional(),
});
export type ContainersConfig = z.infer<typeof ContainersConfig>;

export const CONTAINERS_CONFIG_FILE = 'containers.json';

export interface ContainerSettings {
  backend: BackendChoice;
  /** The engine `auto` uses for tasks that need an image. */
  engine: 'podman' | 'docker';
  baseImages: Record<string, string>;
  pull: boolean;
  /** The agent's network for the whole run (a task's allow_internet turns it on for that task). */
  network: boolean;
  /** Engine hosts that run the container episodes (`eval --hosts`); absent or empty: this machine's engine. */
  hosts?: HostConfig[];
}

export function loadContainersConfig(dataDir = labDataDir()): ContainersConfig {
  const path = join(dataDir, CONTAINERS_CONFIG_FILE);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return {};
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new LabError('INVALID_PARAMS', `${path}: not valid JSON (${(e as Error).message})`);
  }
  const parsed = ContainersConfig.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new LabError('INVALID_PARAMS', `${path}: ${i?.path.join('.') || '(top level)'}: ${i?.message}`);
  }
  return parsed.data;
}

/** `A=B` pairs from the command line; a malformed one names itself. */
export function parseBaseImageArgs(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0 || at === pair.length - 1)
      throw new LabError(
        'INVALID_PARAMS',
        `--base-image '${pair}': expected FROM_IMAGE=LOCAL_IMAGE (e.g. python:3.13-slim-bookworm=localhost/t1lab-base:bookworm)`,
      );
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

export function containerSettings(
  options: { backend?: BackendChoice; baseImages?: string[]; network?: boolean; dataDir?: string } = {},
): ContainerSettings {
  const config = loadContainersConfig(options.dataDir);
  return {
    backend: options.backend ?? 'auto',
    engine:
      options.backend === 'docker' ? 'docker' : options.backend === 'podman' ? 'podman' : (config.engine ?? 'podman'),
    baseImages: { ...(config.baseImages ?? {}), ...parseBaseImageArgs(options.baseImages ?? []) },
    pull: config.pull ?? true,
    network: options.network ?? false,
  };
}

export function parseBackendChoice(value: string): BackendChoice {
  if ((BACKEND_CHOICES as readonly string[]).includes(value)) return value as BackendChoice;
  throw new LabError('INVALID_PARAMS', `--backend '${value}': expected one of ${BACKEND_CHOICES.join(', ')}`);
}
