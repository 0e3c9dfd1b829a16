/**
 * `--backend auto|bubblewrap|podman|docker`, `--base-image FROM=LOCAL` (repeatable) and `--net`, shared by
 * run, eval, tasks audit and verify. Malformed values are usage errors (exit 2) naming the value.
 */
import type { Command } from 'commander';
import { LabError } from '../../ipc/common/errors';
import { BACKEND_CHOICES, containerSettings, parseBackendChoice, type ContainerSettings } from '../../lab/containers/settings';
import { labDataDir } from '../../lab/paths';
import { UsageError } from '../errors';

export interface BackendOptions {
  backend?: string;
  baseImage?: string[];
  net?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addBackendOptions(command: Command, options: { net?: boolean } = { net: true }): Command {
  command
    .option('--backend <name>', `sandbox backend: ${BACKEND_CHOICES.join('|')} (auto: bubblewrap for tasks without an image, the container engine for those with one)`, 'auto')
    .option('--base-image <from=local>', 'substitute a FROM image that cannot be pulled (repeatable; "*=IMAGE" for every such image; also $T1LAB_HOME/containers.json)', collect);
  if (options.net !== false) command.option('--net', "give agents the network (default off; a task's allow_internet turns it on for that task); recorded in the run manifest");
  return command;
}

export function backendSettings(opts: BackendOptions): ContainerSettings {
  try {
    return containerSettings({ backend: parseBackendChoice(opts.backend ?? 'auto'), baseImages: opts.baseImage ?? [], network: opts.net ?? false, dataDir: labDataDir() });
  } catch (error) {
    if (error instanceof LabError && error.code === 'INVALID_PARAMS' && error.message.startsWith('--')) throw new UsageError(error.message);
    throw error;
  }
}
