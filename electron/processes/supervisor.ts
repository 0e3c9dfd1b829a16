/**
 * Owns one worker process: starts it, checks its health, restarts it per policy when it dies, and reports
 * every change as a `WorkerStatus`. A crash is an event, never an exception in the host: the web host and
 * Electron main stay up whatever a worker does.
 */
import { createClient, type CallOptions, type Client } from '../ipc/common/client';
import type { Contract, EventName, EventPayload, MethodInput, MethodName, MethodOutput } from '../ipc/common/define';
import { LabError } from '../ipc/common/errors';
import { EventListeners, type PayloadListener } from '../ipc/common/event-listeners';
import type { WorkerState, WorkerStatus } from '../domain/system';
import { createProcessClientTransport } from '../ipc/node/process';
import { describeExit, type ExitInfo, type WorkerHandle, type WorkerLauncher, type WorkerSpec } from './launcher';
import { withPing, type WithPing } from './ping';

export interface RestartPolicy {
  /** 'on-failure': restart after a crash or an unhealthy ping; 'never': report and stay down. */
  mode: 'on-failure' | 'never';
  /** Give up (state 'failed') after this many restarts inside `windowMs`. */
  maxRestarts: number;
  windowMs: number;
  /** Delay before restart n (0-based) is `min(maxBackoffMs, baseBackoffMs * 2^n)`. */
  baseBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  mode: 'on-failure',
  maxRestarts: 5,
  windowMs: 60_000,
  baseBackoffMs: 200,
  maxBackoffMs: 5_000,
};

export interface SupervisorOptions<C extends Contract> {
  spec: WorkerSpec;
  launcher: WorkerLauncher;
  contract: C;
  restart?: Partial<RestartPolicy>;
  /** Ping period; 0 turns periodic health checks off. */
  healthIntervalMs?: number;
  /** A ping unanswered this long marks the worker unresponsive: it is killed and restarted. */
  healthTimeoutMs?: number;
  /** How long the first ping may take (loading a runtime can be slow). */
  startTimeoutMs?: number;
}

export class WorkerSupervisor<C extends Contract> {
  private readonly policy: RestartPolicy;
  private readonly contract: WithPing<C>;
  private handle: WorkerHandle | null = null;
  private client: Client<WithPing<C>> | null = null;
  private state: WorkerState = 'stopped';
  private since = new Date().toISOString();
  private lastExit: string | null = null;
  private restarts = 0;
  private restartTimes: number[] = [];
  private healthTimer: ReturnType<typeof setInterval> | null = null;
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  private ready: Promise<void> | null = null;
  private stopping = false;
  private readonly statusListeners = new Set<(status: WorkerStatus) => void>();
  /** The supervisor's own listeners; the worker is asked for an event only while one of them listens. */
  private readonly listeners = new EventListeners({
    onFirst: (event) => this.subscribe(event),
    onLast: (event) => this.unsubscribe(event),
  });
  /** The current worker client's subscription per event, each forwarding to `listeners`. */
  private readonly workerSubscriptions = new Map<string, () => void>();

  constructor(private readonly options: SupervisorOptions<C>) {
    this.policy = { ...DEFAULT_RESTART_POLICY, ...options.restart };
    this.contract = withPing(options.contract);
  }

  get name(): string {
    return this.options.spec.name;
  }

  status(): WorkerStatus {
    return {
      name: this.name,
      state: this.state,
      pid: this.handle?.pid ?? null,
      restarts: this.restarts,
      lastExit: this.lastExit,
      since: this.since,
    };
  }

  onStatus(listener: (status: WorkerStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** Start the process; resolves once it answers its first ping. */
  start(): Promise<void> {
    this.stopping = false;
    if (!this.ready) this.ready = this.spawn();
    return this.ready;
  }

  async call<M extends MethodName<WithPing<C>>>(
    method: M,
    input: MethodInput<WithPing<C>, M>,
    options?: CallOptions,
  ): Promise<MethodOutput<WithPing<C>, M>> {
    if (this.state === 'failed') throw new LabError('UNAVAILABLE', `worker '${this.name}' failed: ${this.lastExit}`);
    await this.start();
    const client = this.client;
    if (!client) throw new LabError('UNAVAILABLE', `worker '${this.name}' is not running`);
    try {
      return await client.call(method, input, options);
    } catch (error) {
      if (error instanceof LabError && error.code === 'DISCONNECTED') {
        throw new LabError(
          'WORKER_CRASHED',
          `worker '${this.name}' ended during '${method}': ${this.lastExit ?? 'connection lost'}`,
        );
      }
      throw error;
    }
  }

  /** Listen to a worker event; the subscription survives restarts and ends at the worker with its last listener. */
  on<E extends EventName<WithPing<C>>>(
    event: E,
    listener: (payload: EventPayload<WithPing<C>, E>) => void,
  ): () => void {
    return this.listeners.add(event, listener as PayloadListener);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.clearTimers();
    const handle = this.handle;
    if (!handle) return this.setState('stopped');
    await new Promise<void>((resolve) => {
      const forceKill = setTimeout(() => handle.kill('SIGKILL'), 2_000);
      handle.onExitInfo(() => {
        clearTimeout(forceKill);
        resolve();
      });
      this.client?.close();
      handle.kill('SIGTERM');
    });
  }

  /** Subscribe the current worker to `event` (a worker started later subscribes in `spawn`). */
  private subscribe(event: string) {
    if (!this.client) return;
    this.workerSubscriptions.set(
      event,
      this.client.on(event as EventName<WithPing<C>>, (p) => this.listeners.emit(event, p)),
    );
  }

  private unsubscribe(event: string) {
    this.workerSubscriptions.get(event)?.();
    this.workerSubscriptions.delete(event);
  }

  private setState(state: WorkerState) {
    this.state = state;
    this.since = new Date().toISOString();
    const status = this.status();
    for (const l of this.statusListeners) l(status);
  }

  private async spawn(): Promise<void> {
    if (this.state !== 'restarting') this.setState('starting');
    const handle = this.options.launcher.launch(this.options.spec);
    this.handle = handle;
    const client = createClient<WithPing<C>>(createProcessClientTransport(handle));
    this.client = client;
    for (const event of [...this.workerSubscriptions.keys()]) this.unsubscribe(event);
    for (const event of this.listeners.events()) this.subscribe(event);
    handle.onExitInfo((info) => this.onExit(handle, info));
    try {
      await client.call('worker.ping', {} as never, { timeoutMs: this.options.startTimeoutMs ?? 30_000 });
    } catch (error) {
      const reason =
        error instanceof LabError && error.code === 'TIMEOUT'
          ? 'did not answer its first ping'
          : (this.lastExit ?? String(error));
      if (this.handle === handle) handle.kill('SIGKILL');
      throw new LabError('UNAVAILABLE', `worker '${this.name}' did not start: ${reason}`);
    }
    if (this.handle !== handle) return; // died and was replaced meanwhile
    this.setState('ready');
    this.startHealthChecks(client, handle);
  }

  private startHealthChecks(client: Client<WithPing<C>>, handle: WorkerHandle) {
    const interval = this.options.healthIntervalMs ?? 5_000;
    if (interval <= 0) return;
    const timeoutMs = this.options.healthTimeoutMs ?? 10_000;
    let inflight = false;
    this.healthTimer = setInterval(() => {
      if (inflight) return;
      inflight = true;
      client
        .call('worker.ping', {} as never, { timeoutMs })
        .catch((error: LabError) => {
          if (error.code === 'TIMEOUT' && this.handle === handle) {
            this.lastExit = `unresponsive: no answer to a health check within ${timeoutMs} ms`;
            handle.kill('SIGKILL');
          }
        })
        .finally(() => (inflight = false));
    }, interval);
    this.healthTimer.unref?.();
  }

  private clearTimers() {
    if (this.healthTimer) clearInterval(this.healthTimer);
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.healthTimer = this.restartTimer = null;
  }

  private onExit(handle: WorkerHandle, info: ExitInfo) {
    if (this.handle !== handle) return;
    this.clearTimers();
    this.handle = null;
    this.client = null;
    const unresponsive = this.lastExit?.startsWith('unresponsive') && info.signal === 'SIGKILL';
    if (!unresponsive) this.lastExit = describeExit(info);
    if (this.stopping) {
      this.ready = null;
      return this.setState('stopped');
    }
    this.setState('crashed');
    const now = Date.now();
    this.restartTimes = this.restartTimes.filter((t) => now - t < this.policy.windowMs);
    if (this.policy.mode === 'never' || this.restartTimes.length >= this.policy.maxRestarts) {
      this.ready = null;
      if (this.policy.mode !== 'never')
        this.lastExit = `${this.lastExit}; gave up after ${this.restartTimes.length} restarts in ${this.policy.windowMs / 1000} s`;
      return this.setState('failed');
    }
    const delay = Math.min(this.policy.maxBackoffMs, this.policy.baseBackoffMs * 2 ** this.restartTimes.length);
    this.restartTimes.push(now);
    this.restarts++;
    this.setState('restarting');
    let resolveReady!: () => void;
    let rejectReady!: (e: unknown) => void;
    this.ready = new Promise<void>((res, rej) => ((resolveReady = res), (rejectReady = rej)));
    this.ready.catch(() => {});
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.spawn().then(resolveReady, rejectReady);
    }, delay);
  }
}
