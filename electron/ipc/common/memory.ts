/**
 * An in-memory transport pair for tests and for hosting a router inside the same process. Frames are
 * delivered asynchronously and, being strings, are copies: neither side can mutate what the other holds.
 */
import { Emitter, type ClientTransport, type Peer, type ServerConnection } from './transport';

let counter = 0;

export function createMemoryPair(label = 'memory'): { client: ClientTransport; server: ServerConnection } {
  const toServer = new Emitter<[string, Peer]>();
  const toClient = new Emitter<[string]>();
  const serverClosed = new Emitter<[]>();
  const clientClosed = new Emitter<[string]>();
  const peer: Peer = { kind: 'memory', label };
  let open = true;
  const close = (reason: string) => {
    if (!open) return;
    open = false;
    queueMicrotask(() => {
      serverClosed.fire();
      clientClosed.fire(reason);
    });
  };
  const deliver = (fn: () => void) => {
    if (!open) throw new Error('memory transport is closed');
    queueMicrotask(() => open && fn());
  };
  const client: ClientTransport = {
    send: (frame) => deliver(() => toServer.fire(String(frame), peer)),
    onFrame: (l) => toClient.on(l),
    onClose: (l) => clientClosed.on(l),
    close: () => close('closed by the client'),
  };
  const server: ServerConnection = {
    id: `${label}-${++counter}`,
    send: (frame) => deliver(() => toClient.fire(String(frame))),
    onFrame: (l) => toServer.on(l),
    onClose: (l) => serverClosed.on(() => l()),
    close: () => close('closed by the host'),
  };
  return { client, server };
}
