/** Raw bytes to an HTTP server over TCP, for requests no HTTP client would send. */
import { connect, type Socket } from 'node:net';

export interface RawReply {
  /** The status code of the first response line, or null when the server closed without answering. */
  status: number | null;
  text: string;
}

/** Send `bytes`, then read until the server closes the connection (or `waitMs` passes, then close it ourselves). */
export function rawRequest(port: number, bytes: string | Buffer, waitMs = 10_000): Promise<RawReply> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : null, text });
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', done);
    socket.on('close', done);
    socket.on('connect', () => socket.write(bytes));
  });
}

/** A completed WebSocket handshake on a raw socket (so that the test can write any bytes after it). */
export function rawWebSocket(port: number, path: string, headers: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const onData = (d: Buffer) => {
      text += d.toString('latin1');
      if (!text.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (text.startsWith('HTTP/1.1 101')) resolve(socket);
      else reject(new Error(`upgrade refused: ${text.split('\r\n')[0]}`));
    };
    socket.on('data', onData);
    socket.on('error', reject);
    socket.on('connect', () =>
      socket.write(
        `GET ${path} HTTP/1.1\r\n${headers}Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      ),
    );
  });
}

/** Resolves once the peer has closed the socket; what it sent before (e.g. a close frame) is returned. */
export function closedByPeer(socket: Socket): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}
