/**
 * The composition root shared by Electron main and the web host: builds the lab's services, the router
 * that serves them over the one contract, and the workers behind them. Transports attach connections.
 */
import { labContract, type LabContract } from '../ipc/common/contract';
import { createRouter, type Handlers, type Router } from '../ipc/common/router';
import type { Peer } from '../ipc/common/transport';
import type { WorkerLauncher } from '../workers/launcher';
import { runDoctor } from './system/doctor';
import { probeOnnxruntimeInWorker } from './system/probe-onnxruntime';
import { WorkerRegistry } from './workers';

export interface LabHostOptions {
  dataDir: string;
  launcher: WorkerLauncher;
  /** Decides who may call what; see `defaultAuthorize`. */
  authorize?: (peer: Peer, method: string) => boolean;
  log?: (message: string) => void;
  maxFrameChars?: number;
}

export interface LabHost {
  readonly router: Router<LabContract>;
  readonly workers: WorkerRegistry;
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
  const workers = new WorkerRegistry(options.launcher);
  const log = options.log ?? ((m: string) => process.stderr.write(`[host] ${m}\n`));

  const handlers: Handlers<LabContract> = {
    'system.doctor': () =>
      runDoctor({
        dataDir: options.dataDir,
        probeOnnxruntime: (hasNvidiaGpu) => probeOnnxruntimeInWorker(workers, hasNvidiaGpu),
      }),
    'system.workers': () => workers.list(),
    'system.ping': ({ echo }) => ({ echo: echo ?? null, at: new Date().toISOString() }),
  };

  const router = createRouter(labContract, handlers, {
    authorize: options.authorize ?? defaultAuthorize,
    log,
    maxFrameChars: options.maxFrameChars,
  });
  const unsubscribe = workers.onStatus((status) => router.emit('system.worker', status));

  return {
    router,
    workers,
    async dispose() {
      unsubscribe();
      router.dispose();
      await workers.stopAll();
    },
  };
}
