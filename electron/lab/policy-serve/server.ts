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
import { parseChatRequest } from './request';
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

export async function startPolicyServer(options: PolicyServerOptions): Promise<PolicyServer> {
  const { model, log } = options;
  const limit = options.maxBodyBytes ?? POLICY_SERVE_DEFAULTS.maxBodyBytes;
  const maxConcurrency = options.maxConcurrency ?? POLICY_SERVE_DEFAULTS.maxConcurrency;
  const admitted = maxConcurrency * (1 + POLICY_SERVE_DEFAULTS.queuePerRow);
  const key = options.apiKey ? digest(options.apiKey) : null;
  const running = new Set<AbortController>();

  const modelCard = () => ({
    id: model.id,
    object: 'model',
    created: model.created,
    owned_by: 't1lab',
    max_model_len: model.info.maxPositions,
  });

  const chat = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (running.size >= admitted)
      throw new ApiError(
        429,
        `the server is busy (${running.size} requests in flight); retry shortly`,
        null,
        'rate_limit_exceeded',
        1,
      );
    const request = parseChatRequest(await readJson(req, limit));
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
      if (!request.stream) {
        sendJson(res, 200, completionBody(await model.complete(request, promptIds, abort.signal), ctx));
        return;
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      writeEvent(res, roleChunk(ctx));
      try {
        const done = await model.complete(request, promptIds, abort.signal, {
          delta: (content, logprobs) =>
            writeEvent(res, deltaChunk(ctx, content, request.sampling.logprobs ? logprobs : null)),
        });
        for (const c of finalChunks(done, ctx, request.includeUsage)) writeEvent(res, c);
      } catch (error) {
        if (abort.signal.aborted) return;
        log?.(`stream failed: ${(error as Error)?.message ?? String(error)}`);
        writeEvent(res, errorBody(500, 'the generation failed (logged on the server)'));
      }
      writeEvent(res, '[DONE]');
      res.end();
    } finally {
      running.delete(abort);
    }
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0] as string;
    const method = req.method ?? 'GET';
    const allow = (methods: string[]) => {
      if (!methods.includes(method))
        throw new ApiError(405, `${path} takes ${methods.join(' or ')}`, null, 'method_not_allowed');
    };
    if (path === '/health') {
      allow(['GET']);
      return sendJson(res, 200, { status: 'ok', model: model.id, in_flight: running.size });
    }
    if (!path.startsWith('/v1/'))
      throw new ApiError(404, `no such endpoint: ${path.slice(0, 100)} (the API is under /v1)`, null, 'not_found');
    if (!authorized(req, key))
      throw new ApiError(401, 'this server needs its API key as Authorization: Bearer ...', null, 'invalid_api_key');
    if (path === '/v1/models') {
      allow(['GET']);
      return sendJson(res, 200, { object: 'list', data: [modelCard()] });
    }
    if (path.startsWith('/v1/models/')) {
      allow(['GET']);
      let id: string;
      try {
        id = decodeURIComponent(path.slice('/v1/models/'.length));
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
      return sendJson(res, 200, modelCard());
    }
    if (path === '/v1/chat/completions') {
      allow(['POST']);
      return chat(req, res);
    }
    throw new ApiError(
      404,
      `no such endpoint: ${path.slice(0, 100)} (served: /v1/models, /v1/chat/completions)`,
      null,
      'not_found',
    );
  };

  const server: Server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      // A cancelled request's client is gone: nothing to answer.
      if ((error as { code?: string }).code === 'CANCELLED') return void res.destroy();
      sendError(res, error, log);
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

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const hostPart = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostPart}:${port}/v1`,
    port,
    get inFlight() {
      return running.size;
    },
    close: async () => {
      for (const a of running) a.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await model.close();
    },
  };
}
