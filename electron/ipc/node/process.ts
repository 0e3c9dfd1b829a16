/**
 * Transports over process messaging: the parent talks to a worker through its `WorkerHandle`; the worker
 * talks back through `process.parentPort` (Electron utilityProcess) or `process.send` (child_process.fork).
 */
import { Emitter, type ClientTransport, type Peer, type ServerConnection } from '../common/transport';

/** The parent's handle of a worker process; implemented by each launcher (fork, utilityProcess). */
export interface MessageChannelLike {
  readonly pid: number | null;
  post(frame: string): void;
  onMessage(listener: (frame: unknown) => void): { dispose(): void };
  onExit(listener: (reason: string) => void): { dispose(): void };
}

/** Parent side: a client of the worker's router. */
export function createProcessClientTransport(channel: MessageChannelLike): ClientTransport {
  const frames = new Emitter<[string]>();
  const closed = new Emitter<[string]>();
  let open = true;
  const subs = [
    channel.onMessage((message) => {
      if (typeof message === 'string') frames.fire(message);
    }),
    channel.onExit((reason) => {
      if (!open) return;
      open = false;
      closed.fire(reason);
    }),
  ];
  return {
    send(frame) {
      if (!open) throw new Error('worker is gone');
      channel.post(frame);
    },
    onFrame: (l) => frames.on(l),
    onClose: (l) => closed.on(l),
    close() {
      if (!open) return;
      open = false;
      for (const s of subs) s.dispose();
      closed.fire('closed by the parent');
    },
  };
}

interface ParentPortLike {
  on(event: 'message', listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

/** Worker side: the connection to the parent, over whichever channel this process was started with. */
export function createParentConnection(): ServerConnection {
  const frames = new Emitter<[string, Peer]>();
  const closed = new Emitter<[]>();
  const peer: Peer = { kind: 'process', pid: process.ppid };
  const parentPort = (process as unknown as { parentPort?: ParentPortLike }).parentPort;
  let post: (frame: string) => void;
  if (parentPort) {
    parentPort.on('message', (event) => typeof event.data === 'string' && frames.fire(event.data, peer));
    post = (frame) => parentPort.postMessage(frame);
  } else if (process.send) {
    process.on('message', (message) => typeof message === 'string' && frames.fire(message, peer));
    process.on('disconnect', () => closed.fire());
    post = (frame) => {
      if (process.connected) process.send?.(frame);
    };
  } else {
    throw new Error('this process was not started as a worker (no IPC channel to a parent)');
  }
  return {
    id: 'parent',
    send: (frame) => post(frame),
    onFrame: (l) => frames.on(l),
    onClose: (l) => closed.on(l),
    close: () => process.disconnect?.(),
  };
}
