/**
 * Container episodes placed on engine hosts (`eval --hosts a,b`): each episode takes a free slot on the
 * host with the most free slots, runs there through the API backend, and gives the slot back. The task's
 * image is put on the host that runs it the first time it is needed there (saved from this machine's
 * engine, loaded there) and found there afterwards. Every host is swept at the start and at the end of the
 * run, and every SWEEP_INTERVAL_MS while it runs. Bubblewrap tasks stay local. A host that fails is left for the rest of the run, and the episode is
 * tried again on another one (bounded); with none left it is an infrastructure error. A host with running
 * episodes is asked every HOST_PROBE_MS whether it still answers (PPO's rollouts place episodes here too).
 */
import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { ApiContainerBackend, isHostFailure } from '../../../native/sandbox/container/api/backend';
import { EngineClient, type HostConfig, type SweepResult } from '../../../native/sandbox/container/api/client';
import { engineCommand, type EngineName } from '../../../native/sandbox/container/engine';
import type { PhaseRuntime } from '../containers/runtime';
import { installId } from './store';

export interface HostLease {
  host: string;
  backend: ApiContainerBackend;
  release(): void;
}

interface HostState {
  config: HostConfig;
  client: EngineClient;
  backend: ApiContainerBackend | null;
  busy: number;
  down: string | null;
  /** Told once when the host is marked down (the episodes running there give it up). */
  onDown: Set<(why: string) => void>;
  /** Asks the host whether it still answers while episodes run there. */
  probe: NodeJS.Timeout | null;
}

/** How often a run sweeps its hosts while it runs (what other, dead runs left: they may share the hosts). */
export const SWEEP_INTERVAL_MS = 10 * 60_000;
/**
 * How often a host with running episodes is asked whether it still answers (`engineInfo`, itself bounded).
 * One that does not is marked down, and the episodes running there are given up at once rather than at
 * their deadline: a call to a dead engine can wait on a connection nothing closes.
 */
export const HOST_PROBE_MS = 5_000;

export class HostPool {
  private readonly hosts: HostState[];
  private sweeper: NodeJS.Timeout | null = null;
  private readonly waiting: Array<() => void> = [];
  private readonly images = new Map<string, Promise<void>>();

  constructor(
    configs: HostConfig[],
    private readonly ctx: { installId: string; runId: string },
  ) {
    this.hosts = configs.map((config) => ({
      config,
      client: new EngineClient(config),
      backend: null,
      busy: 0,
      down: null,
      onDown: new Set(),
      probe: null,
    }));
  }

  get names(): string[] {
    return this.hosts.map((h) => h.config.name);
  }

  /** Hosts still usable. */
  get alive(): string[] {
    return this.hosts.filter((h) => !h.down).map((h) => h.config.name);
  }

  /** Ask each host what engine it runs; an unreachable one is marked down. Then sweep what dead runs left. */
  async open(log: (m: string) => void): Promise<void> {
    await Promise.all(
      this.hosts.map(async (h) => {
        try {
          const info = await h.client.engineInfo(true);
          h.backend = new ApiContainerBackend(h.client, info.engine, this.ctx);
          const swept = await h.client.sweep(this.ctx.installId);
          const n = countSwept(swept);
          if (n) log(`host '${h.config.name}': swept ${n} objects left by dead runs`);
        } catch (e) {
          this.markDown(h.config.name, (e as Error).message);
          log(`host '${h.config.name}' is not used: ${(e as Error).message}`);
        }
      }),
    );
    this.sweeper = setInterval(() => void this.sweepLive(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  private async sweepLive(): Promise<void> {
    for (const h of this.hosts) if (!h.down) await h.client.sweep(this.ctx.installId).catch(() => {});
  }

  /** Sweep every live host (at the end of a run: what this run left, if anything, and what dead ones left). */
  async close(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
    for (const h of this.hosts) this.stopProbe(h);
    await this.sweepLive();
  }

  /** Whether the host still answers (asked afresh): an episode that failed there may have failed with it. */
  async reachable(name: string): Promise<boolean> {
    const h = this.hosts.find((x) => x.config.name === name);
    if (!h || h.down) return false;
    return h.client.engineInfo(true).then(
      () => true,
      () => false,
    );
  }

  markDown(name: string, why: string): void {
    const h = this.hosts.find((x) => x.config.name === name);
    if (h && !h.down) {
      h.down = why;
      this.stopProbe(h);
      for (const tell of [...h.onDown]) tell(why);
      h.onDown.clear();
    }
    this.wake();
  }

  /** Call `listener` with the reason once the host is marked down (at once if it is); returns the unsubscribe. */
  onDown(name: string, listener: (why: string) => void): () => void {
    const h = this.hosts.find((x) => x.config.name === name);
    if (!h) return () => {};
    if (h.down) {
      listener(h.down);
      return () => {};
    }
    h.onDown.add(listener);
    return () => void h.onDown.delete(listener);
  }

  /** While episodes run on the host: ask it every HOST_PROBE_MS; no answer marks it down. */
  private watch(h: HostState): void {
    if (h.probe || h.down) return;
    let asking = false;
    h.probe = setInterval(() => {
      if (h.busy === 0) return this.stopProbe(h);
      if (asking) return;
      asking = true;
      h.client
        .engineInfo(true)
        .catch((e: Error) => this.markDown(h.config.name, `host '${h.config.name}' stopped answering: ${e.message}`))
        .finally(() => (asking = false));
    }, HOST_PROBE_MS);
    h.probe.unref();
  }

  private stopProbe(h: HostState): void {
    if (h.probe) clearInterval(h.probe);
    h.probe = null;
  }

  /** Live hosts with an engine, leaving out `avoid`. */
  private usable(avoid: ReadonlySet<string>): HostState[] {
    return this.hosts.filter((h) => !h.down && h.backend && !avoid.has(h.config.name));
  }

  /** Slots on live hosts, taken or not: the most episodes that can run at once. */
  capacity(): number {
    return this.usable(new Set()).reduce((n, h) => n + h.config.slots, 0);
  }

  /**
   * A slot on the live host with the most free slots, taken now, or null when no live host outside `avoid`
   * has one free (never waits: a caller that answers "busy, retry later" instead of queueing, like `env serve`).
   */
  tryAcquire(avoid: ReadonlySet<string> = new Set()): HostLease | null {
    const h = this.usable(avoid)
      .filter((x) => x.busy < x.config.slots)
      .sort((a, b) => b.config.slots - b.busy - (a.config.slots - a.busy))[0];
    if (!h) return null;
    h.busy++;
    this.watch(h);
    let released = false;
    return {
      host: h.config.name,
      backend: h.backend as ApiContainerBackend,
      release: () => {
        if (released) return;
        released = true;
        h.busy--;
        this.wake();
      },
    };
  }

  /** A slot on the live host with the most free slots (waits for one; null when every host is down or `avoid`ed). */
  async acquire(avoid: ReadonlySet<string> = new Set()): Promise<HostLease | null> {
    for (;;) {
      if (!this.usable(avoid).length) return null;
      const lease = this.tryAcquire(avoid);
      if (lease) return lease;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private wake(): void {
    for (const w of this.waiting.splice(0)) w();
  }

  /** Put `ref` on the host when it lacks it: `save` from this machine's engine, `load` there (once per host and image). */
  ensureImage(lease: HostLease, ref: string, localEngine: EngineName): Promise<void> {
    const key = `${lease.host}\0${ref}`;
    let p = this.images.get(key);
    if (!p) {
      p = copyImage(lease.backend, ref, localEngine);
      this.images.set(key, p);
      p.catch(() => this.images.delete(key));
    }
    return p;
  }
}

function countSwept(s: SweepResult): number {
  return s.containers.length + s.volumes.length + s.networks.length + s.images.length;
}

async function copyImage(backend: ApiContainerBackend, ref: string, localEngine: EngineName): Promise<void> {
  if (await backend.hasImage(ref)) return;
  const c = engineCommand(localEngine, ['save', ref]);
  const child = spawn(c.file, c.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-1000)));
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('close', resolve);
  });
  await backend.client.loadImage(child.stdout as Readable);
  const code = await exited;
  if (code !== 0)
    throw new Error(
      `could not save ${ref} from this machine's ${localEngine} to send it to host '${backend.host}': ${stderr.trim()}`,
    );
  if (!(await backend.hasImage(ref)))
    throw new Error(`host '${backend.host}' loaded the archive of ${ref} but has no such image after it`);
}

/** The task's runtime, moved to a host: the same image, run there. */
export function onHost(runtime: PhaseRuntime, lease: HostLease): PhaseRuntime {
  if (!runtime.container) return runtime;
  return {
    ...runtime,
    sandbox: lease.backend,
    container: { ...runtime.container, host: { name: lease.host, backend: lease.backend } },
    reason: `${runtime.reason}; on host '${lease.host}'`,
  };
}

/** Whether an episode's sandbox error is the host's (unreachable, gone mid-run) rather than the task's. */
export function hostFailed(error: { kind: string; message: string } | null, host: string): boolean {
  if (!error || error.kind !== 'sandbox') return false;
  return (
    error.message.includes(`host '${host}'`) &&
    /unavailable|failed mid-run|could not (start|create|copy)|unreachable|ECONN|socket hang up/.test(error.message)
  );
}

export { isHostFailure };

/** How many hosts one episode is tried on before it is given up as an infrastructure error. */
export const MAX_HOST_TRIES = 3;

/**
 * Run one episode where it belongs: on this machine when the pool is absent or the task needs no
 * container, else on a host with a free slot. A host that fails under the episode (unreachable, gone
 * mid-run, cannot take the image, or marked down while it runs: by the probe or another episode's failure,
 * and the episode is then given up there at once) is left for the rest of the run and the episode is tried on another;
 * `giveUp` makes the record when no host is left. The record names its host.
 */
export async function runPlaced<R extends { error: { kind: string; message: string } | null }>(
  pool: HostPool | null,
  runtime: PhaseRuntime | undefined,
  run: (runtime: PhaseRuntime | undefined) => Promise<R>,
  giveUp: (reason: string) => R,
  log: (m: string) => void = () => {},
): Promise<R & { host?: string }> {
  if (!pool || !runtime?.container) return run(runtime);
  const tried = new Set<string>();
  const why: string[] = [];
  for (let i = 0; i < MAX_HOST_TRIES; i++) {
    const lease = await pool.acquire(tried);
    if (!lease) break;
    tried.add(lease.host);
    try {
      try {
        await pool.ensureImage(lease, runtime.container.image.ref, runtime.container.engine);
      } catch (e) {
        why.push(`host '${lease.host}': ${(e as Error).message}`);
        if (isHostFailure(e)) pool.markDown(lease.host, (e as Error).message);
        log(`host '${lease.host}' could not take ${runtime.container.image.ref}: ${(e as Error).message}`);
        continue;
      }
      // The episode, given up at once when the host is marked down under it (by the probe, or another episode).
      let unsubscribe = () => {};
      const down = new Promise<{ down: string }>(
        (resolve) => (unsubscribe = pool.onDown(lease.host, (why) => resolve({ down: why }))),
      );
      const work = run(onHost(runtime, lease));
      const ended = await Promise.race([work.then((record) => ({ record })), down]).finally(unsubscribe);
      if ('down' in ended) {
        work.catch(() => {}); // left to end on its own; the host is not used again
        why.push(ended.down);
        log(
          `host '${lease.host}' went down under an episode; the episode is given up there (${ended.down.slice(0, 200)})`,
        );
        continue;
      }
      const record = ended.record;
      // A failure that names the host, or any failure on a host that no longer answers, is the host's.
      if (hostFailed(record.error, lease.host) || (record.error && !(await pool.reachable(lease.host)))) {
        const said = (record.error as { message: string }).message;
        const message = said.includes(`host '${lease.host}'`) ? said : `host '${lease.host}': ${said}`;
        why.push(message);
        pool.markDown(lease.host, message);
        log(
          `host '${lease.host}' failed under an episode; it is not used for the rest of the run (${message.slice(0, 200)})`,
        );
        continue;
      }
      return { ...record, host: lease.host };
    } finally {
      lease.release();
    }
  }
  return giveUp(
    `infrastructure: no engine host could run it (${why.length ? why.join('; ') : `hosts ${pool.names.join(', ')} are down`})`,
  );
}

/** The pool of a run's hosts, opened (engines asked, swept), or null when the run uses this machine's engine. */
export async function openHostPool(
  hosts: HostConfig[] | undefined,
  dataDir: string,
  runId: string,
  log: (m: string) => void = () => {},
): Promise<HostPool | null> {
  if (!hosts?.length) return null;
  const pool = new HostPool(hosts, { installId: installId(dataDir), runId });
  await pool.open(log);
  log(
    `container episodes run on host${pool.alive.length === 1 ? '' : 's'} ${pool.alive.join(', ') || '(none reachable)'}`,
  );
  return pool;
}
