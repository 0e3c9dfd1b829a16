/**
 * The composition root shared by Electron main and the web host: builds the lab's services, the router
 * that serves them over the one contract, and the workers behind them. Transports attach connections.
 * Each domain contributes its handlers (lab/<domain>/handlers.ts); add yours to `handlers` below.
 */
import { labContract, type LabContract } from '../ipc/common/contract';
import { createRouter, type Handlers, type Router } from '../ipc/common/router';
import type { Disposable, Peer, ServerConnection } from '../ipc/common/transport';
import type { WorkerLauncher } from '../processes/launcher';
import type { HostContext } from './host-context';
import { systemHandlers } from './system/handlers';
import { runsHandlers } from './runs/handlers';
import { statsHandlers } from './stats/handlers';
import { modelsHandlers } from './models/handlers';
import { tasksHandlers } from './tasks/handlers';
import { terminalHandlers } from './terminal/handlers';
import { WorkerRegistry } from './worker-registry';
import { trainingHandlers } from './training/handlers';
import { trainingViewHandlers } from './training/view-handlers';
import { reportsHandlers } from './runs/report-handlers';
import { sweepOrphanedTempDirs } from '../../native/util/temp-dirs';

export interface LabHostOptions {
  dataDir: string;
  launcher: WorkerLauncher;
  /** Decides who may call what; see `defaultAuthorize`. */
  authorize?: (peer: Peer, method: string) => boolean;
  log?: (message: string) => void;
  maxFrameChars?: number;
  /** Desktop notifications (a run ended); Electron main passes its Notification. */
  notify?: (title: string, body: string) => void;
}

export interface LabHost {
  readonly router: Router<LabContract>;
  readonly workers: WorkerRegistry;
  /** Attach a transport connection (web socket, Electron renderer, in-memory). */
  attach(connection: ServerConnection): Disposable;
  dispose(): Promise<void>;
}

/**
 * Web peers are authenticated at the upgrade (token + Origin); Electron peers must be our own app:// main
 * frame; in-memory peers are tests. Process peers (workers) never call the host.
 */
export function defaultAuthorize(peer: Peer): boolean {
  switch (peer.kind) {
    case 'websocket':
      return peer.authenticated;
    case 'electron':
      return peer.isMainFrame && peer.frameUrl.startsWith('app://lab/');
    case 'memory':
      return true;
    case 'process':
      return false;
  }
}

export function createLabHost(options: LabHostOptions): LabHost {
  sweepOrphanedTempDirs(); // what killed runs left behind
  const workers = new WorkerRegistry(options.launcher);
  const log = options.log ?? ((m: string) => process.stderr.write(`[host] ${m}\n`));
  const disconnectHooks = new Map<string, (() => void)[]>();
  let router: Router<LabContract> | null = null;

  const ctx: HostContext = {
    dataDir: options.dataDir,
    workers,
    log,
    notify: options.notify,
    emit: (event, payload) => router?.emit(event, payload),
    emitTo: (id, event, payload) => router?.emitTo(id, event, payload),
    onDisconnect(connectionId, fn) {
      const hooks = disconnectHooks.get(connectionId) ?? [];
      hooks.push(fn);
      disconnectHooks.set(connectionId, hooks);
    },
  };

  const handlers: Handlers<LabContract> = {
    ...systemHandlers(ctx),
    ...runsHandlers(ctx),
    ...modelsHandlers(ctx),
    ...tasksHandlers(ctx),
    ...terminalHandlers(ctx),
    ...statsHandlers(ctx),
    ...trainingHandlers(ctx),
    ...trainingViewHandlers(ctx),
    ...reportsHandlers(ctx),
  };

  router = createRouter(labContract, handlers, {
    authorize: options.authorize ?? defaultAuthorize,
    log,
    maxFrameChars: options.maxFrameChars,
  });
  const unsubscribe = workers.onStatus((status) => router?.emit('system.worker', status));

  const runDisconnectHooks = (connectionId: string) => {
    for (const fn of disconnectHooks.get(connectionId) ?? []) {
      try {
        fn();
      } catch (error) {
        log(`cleanup after ${connectionId} failed: ${(error as Error).message}`);
      }
    }
    disconnectHooks.delete(connectionId);
  };

  return {
    router,
    workers,
    attach(connection) {
      const attached = router.attach(connection);
      const closed = connection.onClose(() => runDisconnectHooks(connection.id));
      return {
        dispose() {
          closed.dispose();
          attached.dispose();
          runDisconnectHooks(connection.id);
        },
      };
    },
    async dispose() {
      unsubscribe();
      router.dispose();
      for (const id of [...disconnectHooks.keys()]) runDisconnectHooks(id);
      await workers.stopAll();
    },
  };
}
