/** The host side of one accepted WebSocket (auth happened at the upgrade; see electron/web). */
import type { WebSocket } from 'ws';
import { Emitter, type Peer, type ServerConnection } from '../common/transport';

let counter = 0;

export function createWebSocketConnection(
  socket: WebSocket,
  peer: Extract<Peer, { kind: 'websocket' }>,
): ServerConnection {
  const frames = new Emitter<[string, Peer]>();
  const closed = new Emitter<[]>();
  socket.on('message', (data, isBinary) => {
    // Binary frames are not part of the protocol; pass them on as text so the router answers MALFORMED.
    const text = isBinary ? `\u0000binary frame of ${(data as Buffer).length} bytes` : data.toString();
    frames.fire(text, peer);
  });
  socket.on('close', () => closed.fire());
  socket.on('error', () => socket.terminate());
  return {
    id: `ws-${++counter}`,
    send(frame) {
      if (socket.readyState === socket.OPEN) socket.send(frame);
    },
    onFrame: (l) => frames.on(l),
    onClose: (l) => closed.on(l),
    close: () => socket.close(1000, 'host closed'),
  };
}
