/**
 * The environment service's container episodes on engine hosts (`env serve --hosts a,b`), through the pool
 * `eval --hosts` uses (HostPool: a slot on the live host with the most free slots, the task image copied
 * there once, a failing host left for the rest of the service's life; onHost, hostFailed). Only the
 * waiting differs: a session never waits for a slot (its client gets 429 and Retry-After instead), so a
 * slot is taken with the pool's tryAcquire, and the pool keeps the one count of slots taken.
 */
import { createSandboxBackend } from '../../../native/sandbox';
import type { HostConfig } from '../../../native/sandbox/container/api/client';
import { needsImage, type PhaseRuntime } from '../containers/runtime';
import type { ContainerSettings } from '../containers/settings';
import type { Task } from '../tasks';
import { hostFailed, isHostFailure, onHost, type HostPool } from '../hosts/placement';

/** A slot taken for one episode, the task's image already on its host. */
export interface Placement {
  host: string;
  runtime: PhaseRuntime;
  release(): void;
}

/** What `--json` and the log say about a host. */
export interface HostView {
  name: string;
  url: string;
  slots: number;
  alive: boolean;
}

export class EnvHosts {
  constructor(
    private readonly pool: HostPool,
    private readonly configs: HostConfig[],
  ) {}

  /** Slots on live hosts, taken or not: the most sessions that can hold a container at once. */
  capacity(): number {
    return this.pool.capacity();
  }

  views(): HostView[] {
    const alive = new Set(this.pool.alive);
    return this.configs.map((h) => ({ name: h.name, url: h.url, slots: h.slots, alive: alive.has(h.name) }));
  }

  /**
   * A free slot on a live host outside `avoid`, with the task's image put there: a placement, 'full' when
   * no such host has a free slot, 'none' when no such host is left, or the reason the host could not take
   * the image (a host failure leaves the host out from then on).
   */
  async place(
    runtime: PhaseRuntime,
    avoid: ReadonlySet<string>,
  ): Promise<Placement | 'full' | 'none' | { host: string; error: string }> {
    const container = runtime.container;
    if (!container) throw new Error('only container episodes are placed on hosts');
    if (!this.pool.alive.some((h) => !avoid.has(h))) return 'none';
    const lease = this.pool.tryAcquire(avoid);
    if (!lease) return 'full';
    try {
      await this.pool.ensureImage(lease, container.image.ref, container.engine);
    } catch (e) {
      lease.release();
      const message = (e as Error).message;
      if (isHostFailure(e)) this.pool.markDown(lease.host, message);
      return {
        host: lease.host,
        error: message.includes(`host '${lease.host}'`) ? message : `host '${lease.host}': ${message}`,
      };
    }
    return { host: lease.host, runtime: onHost(runtime, lease), release: () => lease.release() };
  }

  /**
   * Whether an episode's error is its host's (the error names the host as unavailable, or the host no
   * longer answers): then the host is left out from then on, and the reason, naming the host, is returned.
   */
  async failure(host: string, error: { kind: string; message: string } | null): Promise<string | null> {
    if (!error) return null;
    if (!hostFailed(error, host) && (await this.pool.reachable(host))) return null;
    const message = error.message.includes(`host '${host}'`) ? error.message : `host '${host}': ${error.message}`;
    this.pool.markDown(host, message);
    return message;
  }

  /** Sweep the live hosts of what the service (or a dead owner) left. */
  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Whether a task's episodes run in a container with these settings (on a host when the service has hosts). */
export function usesContainer(task: Task, containers: ContainerSettings): boolean {
  if (containers.backend === 'bubblewrap') return false;
  return containers.backend !== 'auto' || needsImage(task);
}

/**
 * What the operator is told at start when tasks that need a container cannot be served: without hosts,
 * they need this machine's podman or docker (and not --backend bubblewrap). Null when every task can run.
 */
export async function containerNotice(
  tasks: Task[],
  containers: ContainerSettings,
): Promise<{ tasks: string[]; message: string } | null> {
  if (containers.hosts?.length) return null;
  const need = tasks
    .filter((t) => (containers.backend === 'bubblewrap' ? needsImage(t) : usesContainer(t, containers)))
    .map((t) => t.id);
  if (!need.length) return null;
  const list = `${need.slice(0, 5).join(', ')}${need.length > 5 ? `, ... (${need.length})` : ''}`;
  const fix =
    "serve them with --hosts a,b (engine hosts from `t1lab hosts add`) or with this machine's podman or docker (--backend auto)";
  if (containers.backend === 'bubblewrap')
    return {
      tasks: need,
      message: `${need.length} task(s) need a container and are not served with --backend bubblewrap (a reset of one answers 503): ${list}; ${fix}`,
    };
  const status = await createSandboxBackend(containers.engine).status();
  if (status.available) return null;
  return {
    tasks: need,
    message: `${need.length} task(s) run in a container, and this machine's ${containers.engine} is unavailable (${status.hint ?? 'no engine'}), so a reset of one answers 503: ${list}; ${fix}`,
  };
}
