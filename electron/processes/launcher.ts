/**
 * One interface to start a worker process, with an implementation per runtime chosen at the composition
 * root: `child_process.fork` in plain Node (CLI, web host, tests) and Electron's `utilityProcess` in the
 * app (electron/main/utility-launcher.ts). node-pty is not thread-safe, so workers are processes, never
 * worker_threads.
 */
import { fork } from 'node:child_process';
import type { MessageChannelLike } from '../ipc/node/process';
import { withAllocatorTunables } from '../../native/onnx/allocator-env';

export interface WorkerSpec {
  /** A short name for logs and the System page: 'pty-host', 'policy', 'trainer'. */
  name: string;
  /** The entry module, absolute path (see entries.ts). */
  modulePath: string;
  /** Node flags, e.g. the TypeScript loader when running from source. */
  execArgv: string[];
  args?: string[];
  env?: Record<string, string | undefined>;
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  /** Set when the process could not be started at all. */
  error?: string;
}

export interface WorkerHandle extends MessageChannelLike {
  onExitInfo(listener: (info: ExitInfo) => void): { dispose(): void };
  kill(signal?: NodeJS.Signals): void;
}

export interface WorkerLauncher {
  readonly kind: 'fork' | 'utility';
  launch(spec: WorkerSpec): WorkerHandle;
}

export function describeExit(info: ExitInfo): string {
  if (info.error) return `could not start: ${info.error}`;
  if (info.signal) return `killed by ${info.signal}`;
  return `exited with code ${info.code}`;
}

/**
 * The exit half of a WorkerHandle, shared by every launcher: exit listeners fire once, with the raw exit
 * (`onExitInfo`) or its description (`onExit`).
 */
export function exitNotifier(): Pick<WorkerHandle, 'onExit' | 'onExitInfo'> & {
  fire(info: ExitInfo): void;
  readonly exited: boolean;
} {
  let exited = false;
  const listeners = new Set<(info: ExitInfo) => void>();
  const add = (listener: (info: ExitInfo) => void) => {
    listeners.add(listener);
    return { dispose: () => listeners.delete(listener) };
  };
  return {
    get exited() {
      return exited;
    },
    fire(info) {
      if (exited) return;
      exited = true;
      for (const l of listeners) l(info);
    },
    onExitInfo: add,
    onExit: (listener) => add((info) => listener(describeExit(info))),
  };
}

export const forkLauncher: WorkerLauncher = {
  kind: 'fork',
  launch(spec) {
    const child = fork(spec.modulePath, spec.args ?? [], {
      execArgv: spec.execArgv,
      env: withAllocatorTunables({ ...process.env, ...spec.env, T1LAB_WORKER: spec.name }),
      serialization: 'json',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exit = exitNotifier();
    child.on('exit', (code, signal) => exit.fire({ code, signal }));
    child.on('error', (error) => exit.fire({ code: null, signal: null, error: error.message }));
    return {
      get pid() {
        return child.pid ?? null;
      },
      post(frame) {
        if (child.connected) child.send(frame);
      },
      onMessage(listener) {
        child.on('message', listener);
        return { dispose: () => child.off('message', listener) };
      },
      onExitInfo: exit.onExitInfo,
      onExit: exit.onExit,
      kill(signal = 'SIGTERM') {
        if (!exit.exited) child.kill(signal);
      },
    };
  },
};
