/**
 * The environment service over HTTP and WebSocket, in OpenEnv's protocol (`POST /reset`, `POST /step`,
 * `GET /state`, `GET /health`, `GET /schema`, and `/ws` with `{type: reset|step|state|close, data}`
 * messages), plus what a shared service needs and OpenEnv's core leaves out: `POST /sessions` (admin
 * token) issues a session and its bearer token; every other call carries that token and reaches only its
 * own session. Bad input is a 4xx with a message, never a crash; a WebSocket that closes ends its session.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { z } from 'zod';
import { ENV_DEFAULTS, EnvAction, EnvError, type EnvService } from './service';
import { readJsonObject } from '../json-body';

export interface EnvServerOptions {
  service: EnvService;
  host: string;
  port: number;
  maxBodyBytes?: number;
  /** Request failures that are the service's fault (never tokens). */
  log?: (line: string) => void;
}

export interface EnvServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

type Session = ReturnType<EnvService['sessionOf']>;

/** The bearer token of a request (`Authorization: Bearer TOKEN`), or null. */
export function bearer(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return null;
  const m = /^Bearer ([A-Za-z0-9._~+/=-]{1,512})$/.exec(header.trim());
  return m ? (m[1] as string) : null;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, error: unknown, log?: (line: string) => void): void {
  if (error instanceof EnvError) {
    send(
      res,
      error.status,
      { error: { status: error.status, message: error.message } },
      error.retryAfterSec !== undefined ? { 'retry-after': String(error.retryAfterSec) } : {},
    );
    return;
  }
  log?.(`internal error: ${(error as Error)?.message ?? String(error)}`);
  send(res, 500, { error: { status: 500, message: 'internal error (logged on the server)' } });
}

/** The JSON body, at most `limit` bytes (413 beyond), an object (400 otherwise); an empty body is {}. */
async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  return (await readJsonObject(req, limit, (status, message) => new EnvError(status, message))) ?? {};
}

const SCHEMA = {
  action: z.toJSONSchema(EnvAction),
  observation: {
    type: 'object',
    description:
      'task_id, episode_id, step, output (what the action printed, head and tail), screen (the terminal lines), exit_code, timed_out; at reset also instruction; when done also resolved, rewards {dense, fraction, binary}, stop_reason, verifier {status, passed, total, assertions [{name, status, message}]}',
  },
  state: { type: 'object', description: 'session_id, episode_id, task_id, step_count, done, expires_at, last_episode' },
};

export async function startEnvServer(options: EnvServerOptions): Promise<EnvServer> {
  const { service, log } = options;
  const limit = options.maxBodyBytes ?? ENV_DEFAULTS.maxBodyBytes;
  const sockets = new Set<WebSocket>();
  const server = httpServer(service, limit, log);
  const wss = new WebSocketServer({ noServer: true, maxPayload: limit });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const opened = openSocketSession(service, req);
    if ('refusal' in opened) socket.end(opened.refusal);
    else wss.handleUpgrade(req, socket, head, (ws) => serveSocket(service, ws, opened, sockets, log));
  });
  await listen(server, options.port, options.host);
  const port = (server.address() as AddressInfo).port;
  const hostPart = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostPart}:${port}`,
    port,
    close: async () => {
      for (const ws of sockets) ws.terminate();
      wss.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await service.close();
    },
  };
}

/** The HTTP side: each request routed, a failure answered as its status (a refused body closes the connection), a malformed request 400. */
function httpServer(service: EnvService, limit: number, log: ((line: string) => void) | undefined): Server {
  const server: Server = createServer((req, res) => {
    route(service, limit, req, res).catch((error: unknown) => {
      sendError(res, error, log);
      // A body we refused is not read to its end: close the connection rather than read it.
      if (error instanceof EnvError && error.status === 413) req.destroy();
    });
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 0;
  server.on('clientError', (_error, socket: Duplex) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
  return server;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}

/** One HTTP request: its endpoint, method and token checked, the service called, the answer sent. */
async function route(service: EnvService, limit: number, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0] as string;
  const method = req.method ?? 'GET';
  const allow = (methods: string[]) => {
    if (!methods.includes(method)) throw new EnvError(405, `${path} takes ${methods.join(' or ')}`);
  };
  const session = (): Session => service.sessionOf(bearer(req));
  switch (path) {
    case '/health':
      allow(['GET']);
      return send(res, 200, { status: 'healthy' });
    case '/schema':
      allow(['GET']);
      return send(res, 200, SCHEMA);
    case '/tasks':
      allow(['GET']);
      if (!service.isAdmin(bearer(req))) session();
      return send(res, 200, { tasks: service.taskIds() });
    case '/sessions': {
      allow(['POST']);
      if (!service.isAdmin(bearer(req)))
        throw new EnvError(401, 'POST /sessions needs the admin token (Authorization: Bearer ...)');
      await readJson(req, limit);
      return send(res, 201, service.createSession());
    }
    case '/session': {
      allow(['DELETE']);
      await service.closeSession(session(), 'closed by its client');
      return send(res, 200, { closed: true });
    }
    case '/reset': {
      allow(['POST']);
      const s = session();
      return send(res, 200, await service.reset(s, await readJson(req, limit)));
    }
    case '/step': {
      allow(['POST']);
      const s = session();
      return send(res, 200, await service.step(s, await readJson(req, limit)));
    }
    case '/state':
      allow(['GET']);
      return send(res, 200, service.state(session()));
    default: {
      const encoded = ORACLE_PATH.exec(path)?.[1];
      if (encoded === undefined) throw new EnvError(404, `no such endpoint: ${path.slice(0, 100)}`);
      allow(['GET']);
      if (!service.isAdmin(bearer(req))) throw new EnvError(401, 'the oracle is for the admin token only');
      const id = decodeTaskId(encoded);
      return send(res, 200, { task_id: id, commands: service.oracle(id) });
    }
  }
}

/** `GET /tasks/ID/oracle` (admin token only): the oracle's commands of task ID. */
const ORACLE_PATH = /^\/tasks\/([^/]{1,256})\/oracle$/;

/** A task id from a path segment, percent-decoded; 400 when that fails. */
export function decodeTaskId(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new EnvError(400, 'the task id is not valid percent-encoding');
  }
}

interface SocketSession {
  session: Session;
  /** Opened by the admin token for this connection only: it ends with it. */
  ephemeral: boolean;
}

/** The session a `/ws` upgrade joins (the admin token opens one of its own), or the HTTP answer that refuses it. */
function openSocketSession(service: EnvService, req: IncomingMessage): SocketSession | { refusal: string } {
  const refuse = (status: number, text: string) => ({
    refusal: `HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`,
  });
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/ws') return refuse(404, 'Not Found');
  const token = bearer(req);
  try {
    if (service.isAdmin(token)) {
      // The admin token on /ws opens a session that lives as long as the connection.
      const created = service.createSession();
      return { session: service.sessionOf(created.token), ephemeral: true };
    }
    return { session: service.sessionOf(token), ephemeral: false };
  } catch (error) {
    if (error instanceof EnvError && error.status === 429) {
      return {
        refusal: `HTTP/1.1 429 Too Many Requests\r\nretry-after: ${error.retryAfterSec ?? 1}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`,
      };
    }
    if (error instanceof EnvError && error.status === 503) return refuse(503, 'Service Unavailable');
    return refuse(401, 'Unauthorized');
  }
}

/** A WebSocket's messages, answered one at a time in order; its close ends the session at once (a command in progress is stopped with its sandbox). */
function serveSocket(
  service: EnvService,
  ws: WebSocket,
  { session, ephemeral }: SocketSession,
  sockets: Set<WebSocket>,
  log?: (line: string) => void,
): void {
  sockets.add(ws);
  let queue = Promise.resolve();
  const reply = (type: string, data: unknown) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type, data }));
  };
  const fail = (error: unknown) => {
    if (error instanceof EnvError) reply('error', { message: error.message, code: error.status });
    else {
      log?.(`internal error: ${(error as Error)?.message ?? String(error)}`);
      reply('error', { message: 'internal error (logged on the server)', code: 500 });
    }
  };
  ws.on('message', (raw: RawData, isBinary: boolean) => {
    queue = queue.then(async () => {
      try {
        await answerMessage(service, session, ws, readSocketMessage(raw, isBinary), reply);
      } catch (error) {
        fail(error);
      }
    });
  });
  ws.on('error', () => {});
  ws.on('close', () => {
    sockets.delete(ws);
    // The client is gone: its session ends and its sandbox is removed now, not when a command in progress ends.
    void service.closeSession(
      session,
      ephemeral ? 'its WebSocket (admin-opened session) closed' : 'its WebSocket closed',
    );
  });
}

/** A WebSocket message as `{type, data}`; a binary frame, text that is not JSON, or JSON that is no object is a 400. */
export function readSocketMessage(raw: RawData, isBinary: boolean): { type?: unknown; data?: unknown } {
  if (isBinary) throw new EnvError(400, 'send text frames of JSON');
  let message: { type?: unknown; data?: unknown };
  try {
    message = JSON.parse(raw.toString()) as typeof message;
  } catch {
    throw new EnvError(400, 'a message is a JSON object {type, data}');
  }
  if (!message || typeof message !== 'object' || Array.isArray(message))
    throw new EnvError(400, 'a message is a JSON object {type, data}');
  return message;
}

async function answerMessage(
  service: EnvService,
  session: Session,
  ws: WebSocket,
  message: { type?: unknown; data?: unknown },
  reply: (type: string, data: unknown) => void,
): Promise<void> {
  switch (message.type) {
    case 'reset':
      return reply('observation', await service.reset(session, message.data ?? {}));
    case 'step':
      return reply('observation', await service.step(session, { action: message.data }));
    case 'state':
      return reply('state', service.state(session));
    case 'close':
      ws.close(1000, 'closed');
      return;
    default:
      throw new EnvError(
        400,
        `unknown message type ${JSON.stringify(message.type)?.slice(0, 40)} (reset, step, state, close)`,
      );
  }
}
