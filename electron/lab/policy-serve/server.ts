/**
 * `t1lab policy serve` over HTTP: OpenAI's `GET /v1/models`, `GET /v1/models/{id}` and
 * `POST /v1/chat/completions` (tools, `stream` as server-sent events ending in `[DONE]`, `logprobs`), and
 * `GET /health`. Bad input is a 4xx in OpenAI's error shape naming the field, never a crash. A client that
 * disconnects cancels its generation (its row leaves the batch at the next step). With an API key
 * ($T1LAB_POLICY_API_KEY), every /v1 call carries it as `Authorization: Bearer`.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiError, errorBody } from './errors';
import { readJson, sendError, sendJson } from './http';
import { parseChatRequest, type ParsedRequest } from './request';
import { completionBody, deltaChunk, finalChunks, roleChunk, type ResponseContext } from './responses';
import type { ServedModel } from './served-model';

export const POLICY_SERVE_DEFAULTS = {
  /** Requests decoded together (the decoder's rows); more wait for a free row. */
  maxConcurrency: 16,
  /** Requests waiting beyond the rows, per row, before new ones get 429. */
  queuePerRow: 8,
  /** A long conversation of a large-window model is a few hundred KiB of JSON. */
  maxBodyBytes: 4 * 1024 * 1024,
} as const;

export interface PolicyServerOptions {
  model: ServedModel;
  host: string;
  port: number;
  maxConcurrency?: number;
  /** When set, /v1 calls need `Authorization: Bearer <apiKey>`. */
  apiKey?: string | null;
  maxBodyBytes?: number;
  log?: (line: string) => void;
}

export interface PolicyServer {
  /** The OpenAI base URL (ends in /v1): `openai:<url>#<model>` is the lab's policy spec for it. */
  url: string;
  port: number;
  /** Requests admitted and not yet answered. */
  readonly inFlight: number;
  close(): Promise<void>;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

function authorized(req: IncomingMessage, key: Buffer | null): boolean {
  if (!key) return true;
  const m = /^Bearer (.{1,1024})$/.exec((req.headers.authorization ?? '').trim());
  return m !== null && timingSafeEqual(digest(m[1] as string), key);
}

function writeEvent(res: ServerResponse, data: unknown): void {
  if (!res.writableEnded && !res.destroyed)
    res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/** What every handler of one server shares: the model, its limits, and the generations running. */
interface ServeState {
  model: ServedModel;
  log?: (line: string) => void;
  /** Largest request body read. */
  limit: number;
  /** Requests admitted at once (decoding and queued); more get 429. */
  admitted: number;
  /** The API key's digest, or null without one. */
  key: Buffer | null;
  running: Set<AbortController>;
}

export async function startPolicyServer(options: PolicyServerOptions): Promise<PolicyServer> {
  const maxConcurrency = options.maxConcurrency ?? POLICY_SERVE_DEFAULTS.maxConcurrency;
  const state: ServeState = {
    model: options.model,
    log: options.log,
    limit: options.maxBodyBytes ?? POLICY_SERVE_DEFAULTS.maxBodyBytes,
    admitted: maxConcurrency * (1 + POLICY_SERVE_DEFAULTS.queuePerRow),
    key: options.apiKey ? digest(options.apiKey) : null,
    running: new Set<AbortController>(),
  };
  const server = createPolicyHttpServer(state);
  await listen(server, options.port, options.host);
  const port = (server.address() as AddressInfo).port;
  const hostPart = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostPart}:${port}/v1`,
    port,
    get inFlight() {
      return state.running.size;
    },
    close: async () => {
      for (const a of state.running) a.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await state.model.close();
    },
  };
}

/** The HTTP server: each request routed, every failure answered in OpenAI's error shape, malformed HTTP a 400. */
function createPolicyHttpServer(state: ServeState): Server {
  const server = createServer((req, res) => {
    route(state, req, res).catch((error: unknown) => {
      // A cancelled request's client is gone: nothing to answer.
      if ((error as { code?: string }).code === 'CANCELLED') return void res.destroy();
      sendError(res, error, state.log);
      // A body we refused is not read to its end: close the connection rather than read it.
      if (error instanceof ApiError && error.status === 413) req.destroy();
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

const modelCard = (model: ServedModel) => ({
  id: model.id,
  object: 'model',
  created: model.created,
  owned_by: 't1lab',
  max_model_len: model.info.maxPositions,
});

async function route(state: ServeState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { model } = state;
  const path = (req.url ?? '/').split('?')[0] as string;
  const method = req.method ?? 'GET';
  const allow = (methods: string[]) => {
    if (!methods.includes(method))
      throw new ApiError(405, `${path} takes ${methods.join(' or ')}`, null, 'method_not_allowed');
  };
  if (path === '/health') {
    allow(['GET']);
    return sendJson(res, 200, { status: 'ok', model: model.id, in_flight: state.running.size });
  }
  if (!path.startsWith('/v1/'))
    throw new ApiError(404, `no such endpoint: ${path.slice(0, 100)} (the API is under /v1)`, null, 'not_found');
  if (!authorized(req, state.key))
    throw new ApiError(401, 'this server needs its API key as Authorization: Bearer ...', null, 'invalid_api_key');
  if (path === '/v1/models') {
    allow(['GET']);
    return sendJson(res, 200, { object: 'list', data: [modelCard(model)] });
  }
  if (path.startsWith('/v1/models/')) {
    allow(['GET']);
    return sendJson(res, 200, modelCard(servedModelNamed(model, path.slice('/v1/models/'.length))));
  }
  if (path === '/v1/chat/completions') {
    allow(['POST']);
    return chat(state, req, res);
  }
  throw new ApiError(
    404,
    `no such endpoint: ${path.slice(0, 100)} (served: /v1/models, /v1/chat/completions)`,
    null,
    'not_found',
  );
}

/** `GET /v1/models/{id}`: the served model when the (percent-encoded) id names it, else a 4xx. */
function servedModelNamed(model: ServedModel, encodedId: string): ServedModel {
  let id: string;
  try {
    id = decodeURIComponent(encodedId);
  } catch {
    throw new ApiError(400, 'the model id is not valid percent-encoding', 'model', 'invalid_value');
  }
  if (id !== model.id)
    throw new ApiError(
      404,
      `model '${id.slice(0, 200)}' is not served here (this server serves '${model.id}')`,
      'model',
      'model_not_found',
    );
  return model;
}

/** `POST /v1/chat/completions`: admitted, then answered whole or streamed; its row freed when it ends. */
async function chat(state: ServeState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { model, running } = state;
  if (running.size >= state.admitted)
    throw new ApiError(
      429,
      `the server is busy (${running.size} requests in flight); retry shortly`,
      null,
      'rate_limit_exceeded',
      1,
    );
  const request = parseChatRequest(await readJson(req, state.limit));
  if (request.body.model !== model.id)
    throw new ApiError(
      404,
      `model: '${request.body.model.slice(0, 200)}' is not served here (this server serves '${model.id}')`,
      'model',
      'model_not_found',
    );
  const promptIds = model.promptIds(request);
  const abort = new AbortController();
  running.add(abort);
  // A client that goes away frees its row at the next decoding step.
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const ctx: ResponseContext = {
    id: `chatcmpl-${randomUUID().replaceAll('-', '')}`,
    created: Math.floor(Date.now() / 1000),
    model: model.id,
  };
  try {
    if (request.stream) await streamCompletion(state, res, { request, promptIds, signal: abort.signal, ctx });
    else sendJson(res, 200, completionBody(await model.complete(request, promptIds, abort.signal), ctx));
  } finally {
    running.delete(abort);
  }
}

/** A streamed completion as server-sent events: the role, each delta, the final chunks, then `[DONE]`. */
async function streamCompletion(
  state: ServeState,
  res: ServerResponse,
  c: { request: ParsedRequest; promptIds: number[]; signal: AbortSignal; ctx: ResponseContext },
): Promise<void> {
  const { request, ctx } = c;
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  writeEvent(res, roleChunk(ctx));
  try {
    const done = await state.model.complete(request, c.promptIds, c.signal, {
      delta: (content, logprobs) =>
        writeEvent(res, deltaChunk(ctx, content, request.sampling.logprobs ? logprobs : null)),
    });
    for (const chunk of finalChunks(done, ctx, request.includeUsage)) writeEvent(res, chunk);
  } catch (error) {
    if (c.signal.aborted) return;
    state.log?.(`stream failed: ${(error as Error)?.message ?? String(error)}`);
    writeEvent(res, errorBody(500, 'the generation failed (logged on the server)'));
  }
  writeEvent(res, '[DONE]');
  res.end();
}
