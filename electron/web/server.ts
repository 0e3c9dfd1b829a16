/**
 * The web host: the same renderer bundle and the same contract as the desktop app, over HTTP + WebSocket.
 * Loopback by default; a per-launch token on every request; Host and Origin checked.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { ServerConnection } from '../ipc/common/transport';
import { DEFAULT_MAX_FRAME_CHARS } from '../ipc/common/protocol';
import { createWebSocketConnection } from '../ipc/node/websocket-server';
import { allowedHosts, hasValidToken, hostAllowed, originAllowed, TOKEN_COOKIE, tokenFrom } from './auth';
import { resolveStatic, securityHeaders, sendFile } from './static';

export const IPC_PATH = '/ipc';
export const LOOPBACK = '127.0.0.1';

export interface WebHostOptions {
  /** Attaches each accepted WebSocket to the host (LabHost.attach). */
  attach: (connection: ServerConnection) => unknown;
  /** The built renderer (dist/renderer). */
  staticDir: string;
  token: string;
  host?: string;
  port?: number;
  maxFrameChars?: number;
}

export interface WebHost {
  readonly url: string;
  readonly port: number;
  readonly host: string;
  close(): Promise<void>;
}

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1';
}

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const host = options.host ?? LOOPBACK;
  const maxFrameChars = options.maxFrameChars ?? DEFAULT_MAX_FRAME_CHARS;
  const wildcard = host === '0.0.0.0' || host === '::';
  let allowed = new Set<string>();

  const deny = (res: ServerResponse, status: number, message: string) => {
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(`${message}\n`);
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!hostAllowed(req, allowed, wildcard)) return deny(res, 403, 'unexpected Host header');
    if (!hasValidToken(req, options.token)) return deny(res, 401, 'T1 Lab: this page needs the token printed by `t1lab serve` (open the URL it printed)');
    if (req.method !== 'GET' && req.method !== 'HEAD') return deny(res, 405, 'method not allowed');
    // CSP 'self' covers the same-origin ws: URL in CSP Level 3 browsers.
    const headers = securityHeaders("'self'");
    if (tokenFrom(req).via === 'query') {
      // Keep the token for asset and WebSocket requests without leaving it in every URL.
      headers['Set-Cookie'] = `${TOKEN_COOKIE}=${encodeURIComponent(options.token)}; HttpOnly; SameSite=Strict; Path=/`;
    }
    const path = new URL(req.url ?? '/', 'http://placeholder').pathname;
    const file = resolveStatic(options.staticDir, path === '/' ? '/index.html' : path);
    if (!file) return deny(res, 404, 'not found');
    sendFile(res, file, headers);
  });

  // ws closes a connection whose message exceeds maxPayload (bytes); keep it above the router's limit (chars,
  // up to 3 bytes each in UTF-8) so that oversize frames in between get a coded MESSAGE_TOO_LARGE answer.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxFrameChars * 3 + 1024 });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const reject = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    };
    const path = new URL(req.url ?? '/', 'http://placeholder').pathname;
    if (path !== IPC_PATH) return reject(404, 'Not Found');
    if (!hostAllowed(req, allowed, wildcard)) return reject(403, 'Forbidden');
    if (!hasValidToken(req, options.token)) return reject(401, 'Unauthorized');
    if (!originAllowed(req)) return reject(403, 'Forbidden');
    wss.handleUpgrade(req, socket, head, (ws) => {
      const connection = createWebSocketConnection(ws, {
        kind: 'websocket',
        remoteAddress: req.socket.remoteAddress ?? 'unknown',
        origin: req.headers.origin ?? null,
        authenticated: true,
      });
      options.attach(connection);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  allowed = allowedHosts(host.includes(':') ? `[${host}]` : host, port);
  const shownHost = wildcard ? LOOPBACK : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/?token=${encodeURIComponent(options.token)}`,
    port,
    host,
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
    },
  };
}
