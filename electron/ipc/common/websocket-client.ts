/**
 * A client transport over any WHATWG-style WebSocket: the browser's in web mode, the `ws` package's in
 * Node (CLI remote mode, tests). Frames sent before the socket opens are queued.
 */
import { Emitter, type ClientTransport } from './transport';

export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(
    type: 'open' | 'close' | 'error',
    listener: (event: { code?: number; reason?: string }) => void,
  ): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

const OPEN = 1;

export function createWebSocketClientTransport(socket: WebSocketLike): ClientTransport {
  const frames = new Emitter<[string]>();
  const closed = new Emitter<[string]>();
  const queue: string[] = [];
  let isClosed = false;
  socket.addEventListener('open', () => {
    for (const frame of queue.splice(0)) socket.send(frame);
  });
  socket.addEventListener('message', (event) => {
    if (typeof event.data === 'string') frames.fire(event.data);
  });
  const onClose = (reason: string) => {
    if (isClosed) return;
    isClosed = true;
    closed.fire(reason);
  };
  socket.addEventListener('close', (event) =>
    onClose(`socket closed (${event.code ?? '?'}${event.reason ? `: ${event.reason}` : ''})`),
  );
  socket.addEventListener('error', () => onClose('socket error'));
  return {
    send(frame) {
      if (isClosed) throw new Error('socket is closed');
      if (socket.readyState === OPEN) socket.send(frame);
      else queue.push(frame);
    },
    onFrame: (l) => frames.on(l),
    onClose: (l) => closed.on(l),
    close() {
      socket.close(1000, 'client closed');
      onClose('closed by the client');
    },
  };
}
