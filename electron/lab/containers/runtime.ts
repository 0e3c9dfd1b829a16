/**
 * Which backend runs a task, and with what: `auto` = bubblewrap for tasks that need no image, the
 * container engine for those that do; `bubblewrap`, `podman`, `docker` force one. For a container, the
 * task's image is resolved once (task-image.ts) and each phase's spec names the image to start from:
 * the state the previous phase left (committed under a tag derived from the workspace) or the task image.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import {
  ContainerBackend,
  createSandboxBackend,
  inspectImage,
  removeImage,
  sweepOrphanedContainers,
  type EngineName,
} from '../../../native/sandbox';
import type { ContainerSpec, SandboxBackend } from '../../../native/sandbox/types';
import { ApiContainerBackend } from '../../../native/sandbox/container/api/backend';
import { LabError } from '../../ipc/common/errors';
import type { Task } from '../tasks/model';
import { resolveTaskImage, type ResolvedImage, type ResolveHooks } from './task-image';
import type { ContainerSettings } from './settings';

export interface ContainerRuntime {
  engine: EngineName;
  image: ResolvedImage;
  /** The engine host the phase runs on through the API (`eval --hosts`); absent: this machine's engine CLI. */
  host?: { name: string; backend: ApiContainerBackend };
}

export interface PhaseRuntime {
  backend: 'bubblewrap' | EngineName;
  sandbox: SandboxBackend;
  container: ContainerRuntime | null;
  /** The agent's network for this task: the run's switch or the task's allow_internet. */
  network: boolean;
  /** Why this backend (for logs and the manifest). */
  reason: string;
}

const backends = new Map<string, SandboxBackend>();
function backendOf(name: 'bubblewrap' | EngineName): SandboxBackend {
  let b = backends.get(name);
  if (!b) backends.set(name, (b = createSandboxBackend(name)));
  return b;
}

export function needsImage(task: Task): boolean {
  return task.environment.runtime.kind === 'container';
}

/**
 * Resolutions in progress, so that tasks resolved at once share one build. Only while in progress: a later
 * resolution asks the engine again, so a second run reports the image it finds as `cached` (not the first
 * run's `built`), and sees an image removed or a base image rebuilt since.
 */
const resolving = new Map<string, Promise<ResolvedImage>>();
const swept = new Map<EngineName, Promise<unknown>>();

/** Once per process and engine: remove what a killed lab left (containers, state images), like the temp-dir sweep. */
function sweepOnce(engine: EngineName): Promise<unknown> {
  let s = swept.get(engine);
  if (!s) swept.set(engine, (s = sweepOrphanedContainers(engine).catch(() => null)));
  return s;
}

export async function resolvePhaseRuntime(
  task: Task,
  settings: ContainerSettings,
  hooks: ResolveHooks = {},
): Promise<PhaseRuntime> {
  const network = settings.network || task.environment.allowInternet;
  const choice = settings.backend;
  if (choice === 'bubblewrap' || (choice === 'auto' && !needsImage(task))) {
    if (needsImage(task) && task.environment.runtime.kind === 'container') {
      throw new LabError(
        'UNAVAILABLE',
        `task '${task.id}' needs a container: it ${task.environment.runtime.reason}; run it with --backend auto or --backend ${settings.engine}`,
      );
    }
    return {
      backend: 'bubblewrap',
      sandbox: backendOf('bubblewrap'),
      container: null,
      network,
      reason: choice === 'auto' ? 'the task needs no image' : '--backend bubblewrap',
    };
  }
  const engine = settings.engine;
  const sandbox = backendOf(engine);
  const status = await sandbox.status();
  if (!status.available)
    throw new LabError(
      'UNAVAILABLE',
      `task '${task.id}' needs the ${engine} backend, which is unavailable: ${status.hint ?? 'no engine'}`,
    );
  await sweepOnce(engine);
  const content = createHash('sha256');
  for (const f of task.files) content.update(`${f.path}\0`).update(f.data).update('\0');
  const key = `${engine}\0${task.id}\0${JSON.stringify(settings.baseImages)}\0${content.digest('hex')}`;
  let image = resolving.get(key);
  if (!image) {
    image = resolveTaskImage(task, settings, hooks);
    resolving.set(key, image);
    const drop = () => void resolving.delete(key);
    image.then(drop, drop);
  }
  let ready: ResolvedImage;
  try {
    ready = await image;
  } catch (error) {
    const why = task.environment.runtime.kind === 'container' ? ` (it ${task.environment.runtime.reason})` : '';
    const inner = (error as Error).message.replace(
      new RegExp(`^task '${task.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'(: | )`),
      '',
    );
    throw new LabError(
      'UNAVAILABLE',
      `task '${task.id}' needs a container${why}, and its image cannot be had here: ${inner}`,
      (error as LabError).details,
    );
  }
  return {
    backend: engine,
    sandbox,
    container: { engine, image: ready },
    network,
    reason: choice === 'auto' ? 'the task needs its image' : `--backend ${choice}`,
  };
}

/** The tag under which a workspace's container state is committed between phases. */
export function stateTag(workspace: string): string {
  return `localhost/t1lab-state:${createHash('sha256').update(resolve(workspace)).digest('hex').slice(0, 20)}`;
}

/** Where the agent starts in a container: the task's own start dir, else the image's WORKDIR, else the task's workdir. */
export function containerWorkdir(task: Task, c: ContainerRuntime): string {
  if (!c.image.taskImage) return task.environment.workdir;
  return task.environment.startDir ?? (c.image.workdir || '/');
}

/** The container part of a phase's spec: start from the saved state if there is one; commit to it when asked. */
export async function containerSpec(
  task: Task,
  c: ContainerRuntime,
  workspace: string,
  options: { commit: boolean; cpus?: number; user?: string },
): Promise<ContainerSpec> {
  const state = stateTag(workspace);
  const backend = c.host?.backend ?? backendOf(c.engine);
  if (backend instanceof ContainerBackend || backend instanceof ApiContainerBackend) await backend.settled(state);
  const hasState = c.host ? await c.host.backend.hasImage(state) : (await inspectImage(c.engine, state)) !== null;
  return {
    image: hasState ? state : c.image.ref,
    commitTo: options.commit ? state : undefined,
    // The base image gets the task's files in a bound workspace; a task image is its own workspace.
    bindWorkspace: !c.image.taskImage,
    cpus: options.cpus ?? task.environment.cpus,
    user: options.user,
  };
}

/** Remove the state a workspace's phases left (after the episode, or the audit of a task). */
export async function dropState(c: ContainerRuntime | null, workspace: string): Promise<void> {
  if (c?.host) await c.host.backend.removeImage(stateTag(workspace));
  else if (c) await removeImage(c.engine, stateTag(workspace));
}
