/**
 * `--backend auto|bubblewrap|podman|docker`, `--base-image FROM=LOCAL` (repeatable) and `--net`, shared by
 * run, eval, tasks audit and verify; `--hosts a,b` (engine hosts for container episodes), taken by eval and run. Malformed values are usage errors (exit 2) naming the value.
 */
import type { Command } from 'commander';
import { LabError } from '../../ipc/common/errors';
import {
  BACKEND_CHOICES,
  containerSettings,
  parseBackendChoice,
  type ContainerSettings,
} from '../../lab/containers/settings';
import { labDataDir } from '../../lab/paths';
import { selectHosts } from '../../lab/hosts/store';
import { UsageError } from '../errors';

export interface BackendOptions {
  backend?: string;
  /** `--hosts a,b` (eval, run): engine hosts for container episodes. */
  hosts?: string;
  baseImage?: string[];
  net?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addBackendOptions(command: Command, options: { net?: boolean } = { net: true }): Command {
  command
    .option(
      '--backend <name>',
      `sandbox backend: ${BACKEND_CHOICES.join('|')} (auto: bubblewrap for tasks without an image, the container engine for those with one)`,
      'auto',
    )
    .option(
      '--base-image <from=local>',
      'substitute a FROM image that cannot be pulled (repeatable; "*=IMAGE" for every such image; also $T1LAB_HOME/containers.json)',
      collect,
    );
  if (options.net !== false)
    command.option(
      '--net',
      "give agents the network (default off; a task's allow_internet turns it on for that task); recorded in the run manifest",
    );
  return command;
}

export function backendSettings(opts: BackendOptions): ContainerSettings {
  try {
    return containerSettings({
      backend: parseBackendChoice(opts.backend ?? 'auto'),
      baseImages: opts.baseImage ?? [],
      network: opts.net ?? false,
      dataDir: labDataDir(),
    });
  } catch (error) {
    if (error instanceof LabError && error.code === 'INVALID_PARAMS' && error.message.startsWith('--'))
      throw new UsageError(error.message);
    throw error;
  }
}

/** `--hosts` as eval and run take it. */
export const HOSTS_OPTION = [
  '--hosts <names>',
  'run container episodes on these engine hosts (comma-separated, from `t1lab hosts list`; "all": every enabled host), each in a free slot; bubblewrap tasks stay local',
] as const;

/** `--hosts a,b` (or "all") as the hosts' settings; a name not in the settings file is a usage error. */
export function withHosts(settings: ContainerSettings, list: string | undefined): ContainerSettings {
  if (list === undefined) return settings;
  const names =
    list === 'all'
      ? []
      : list
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean);
  try {
    const hosts = selectHosts(labDataDir(), names);
    if (!hosts.length) throw new UsageError('--hosts all: no host is enabled; add one with `t1lab hosts add NAME URL`');
    return { ...settings, hosts };
  } catch (error) {
    if (error instanceof LabError && error.code === 'INVALID_PARAMS') throw new UsageError(error.message);
    throw error;
  }
}
