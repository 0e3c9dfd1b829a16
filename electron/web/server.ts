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
import { admit, allowedHosts, originAllowed, TOKEN_COOKIE, type Gate } from './auth';
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
  limits?: Partial<ConnectionLimits>;
  /** Where request-handler failures are reported (default: stderr). */
  log?: (line: string) => void;
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

/**
 * Bounds on connections, so that a local process that opens many and sends nothing cannot exhaust the host:
 * an idle connection is closed once it has not sent complete headers in `headersTimeoutMs` (408), and at most
 * `maxConnections` are open at once (later ones are dropped until some close).
 */
export interface ConnectionLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** How often Node checks the two timeouts above. */
  checkIntervalMs: number;
  maxConnections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  maxConnections: 256,
};

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const host = options.host ?? LOOPBACK;
  const maxFrameChars = options.maxFrameChars ?? DEFAULT_MAX_FRAME_CHARS;
  const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.limits };
  const log = options.log ?? ((line: string) => process.stderr.write(`[web] ${line}\n`));
  const gate: Gate = {
    token: options.token,
    allowed: new Set<string>(),
    wildcardBind: host === '0.0.0.0' || host === '::',
  };
  const server = httpServer(limits, (req, res) => serveRequest(req, res, gate, options), log);

  // ws closes a connection whose message exceeds maxPayload (bytes); keep it above the router's limit (chars,
  // up to 3 bytes each in UTF-8) so that oversize frames in between get a coded MESSAGE_TOO_LARGE answer.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxFrameChars * 3 + 1024 });
  wss.on('error', (error) => log(`websocket server: ${error.message}`));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // The socket is ours from here: a reset by the client must not become an unhandled 'error' event.
    socket.on('error', () => socket.destroy());
    try {
      acceptUpgrade(req, socket, head, { gate, wss, attach: options.attach, log });
    } catch (error) {
      log(`upgrade ${JSON.stringify(req.url)} failed: ${(error as Error).stack ?? String(error)}`);
      socket.destroy();
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  gate.allowed = allowedHosts(host.includes(':') ? `[${host}]` : host, port);
  const shownHost = gate.wildcardBind ? LOOPBACK : host.includes(':') ? `[${host}]` : host;
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

function deny(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(`${message}\n`);
}

/** A static file of the app, to an admitted GET or HEAD; a token given in the query becomes a cookie. */
function serveRequest(req: IncomingMessage, res: ServerResponse, gate: Gate, options: WebHostOptions): void {
  const admission = admit(req, gate);
  if (!admission.ok) return deny(res, admission.status, admission.message);
  if (req.method !== 'GET' && req.method !== 'HEAD') return deny(res, 405, 'method not allowed');
  // CSP 'self' covers the same-origin ws: URL in CSP Level 3 browsers.
  const headers = securityHeaders("'self'");
  if (admission.via === 'query') {
    // Keep the token for asset and WebSocket requests without leaving it in every URL.
    headers['Set-Cookie'] = `${TOKEN_COOKIE}=${encodeURIComponent(options.token)}; HttpOnly; SameSite=Strict; Path=/`;
  }
  const path = admission.target.pathname;
  const file = resolveStatic(options.staticDir, path === '/' ? '/index.html' : path);
  if (!file) return deny(res, 404, 'not found');
  sendFile(res, file, headers);
}

/** The HTTP server with its connection limits; a handler's bug answers 500, a malformed request 400/408/431. */
function httpServer(
  limits: ConnectionLimits,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  log: (line: string) => void,
): Server {
  const server: Server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
    (req: IncomingMessage, res: ServerResponse) => {
      try {
        handle(req, res);
      } catch (error) {
        // A bug in a handler answers 500 and is logged; it never takes the host down.
        log(`request ${JSON.stringify(req.url)} failed: ${(error as Error).stack ?? String(error)}`);
        if (!res.headersSent) deny(res, 500, 'internal error');
        else res.destroy();
      }
    },
  );
  server.maxConnections = limits.maxConnections;
  // Node answers unparsable requests (bad request line, oversized or malformed headers) with 400/431 itself;
  // a socket error on a connection that has no request yet only closes that connection.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (socket.writable && error.code !== 'ECONNRESET') {
      const status =
        error.code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? '408 Request Timeout'
            : '400 Bad Request';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    } else socket.destroy();
  });
  return server;
}

/** The IPC WebSocket: admitted (token, Host), at IPC_PATH, from an allowed Origin; then attached to the router. */
function acceptUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  x: { gate: Gate; wss: WebSocketServer; attach: WebHostOptions['attach']; log: (line: string) => void },
): void {
  const reject = (status: number, text: string) => {
    socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  };
  const admission = admit(req, x.gate);
  if (!admission.ok)
    return reject(
      admission.status,
      admission.status === 400 ? 'Bad Request' : admission.status === 401 ? 'Unauthorized' : 'Forbidden',
    );
  if (admission.target.pathname !== IPC_PATH) return reject(404, 'Not Found');
  if (!originAllowed(req)) return reject(403, 'Forbidden');
  // ws answers 400 itself to an upgrade with a bad version, key or Upgrade header.
  x.wss.handleUpgrade(req, socket, head, (ws) => {
    try {
      const connection = createWebSocketConnection(ws, {
        kind: 'websocket',
        remoteAddress: req.socket.remoteAddress ?? 'unknown',
        origin: req.headers.origin ?? null,
        authenticated: true,
      });
      x.attach(connection);
    } catch (error) {
      x.log(`websocket attach failed: ${(error as Error).stack ?? String(error)}`);
      ws.terminate();
    }
  });
}
