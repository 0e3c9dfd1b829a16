/**
 * A local OpenAI-compatible chat-completions server for tests: real HTTP on 127.0.0.1. Each request is
 * answered by the next scripted reply (a completion, an HTTP error, a hang) or, when the script is empty,
 * by `fallback(request)`, which sees the conversation (so a test can play a model that solves tasks).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FixtureRequest {
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    messages: {
      role: string;
      content: string | null;
      tool_calls?: { id: string; function: { name: string; arguments: string } }[];
      tool_call_id?: string;
    }[];
    tools?: unknown[];
    temperature?: number;
    seed?: number;
    max_tokens?: number;
  };
}

export type FixtureReply =
  | {
      kind: 'message';
      content?: string | null;
      toolCalls?: { id?: string; name: string; arguments: string }[];
      usage?: { prompt: number; completion: number; cached?: number };
      finish?: string;
    }
  | { kind: 'status'; status: number; body?: string; retryAfter?: string }
  | { kind: 'raw'; body: string }
  /** Never answer (until the client gives up). */
  | { kind: 'hang' };

export interface OpenAiFixture {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  requests: FixtureRequest[];
  script(...replies: FixtureReply[]): void;
  fallback: ((request: FixtureRequest) => FixtureReply) | null;
  close(): Promise<void>;
}

export function completion(reply: Extract<FixtureReply, { kind: 'message' }>, model: string): unknown {
  const usage = reply.usage ?? { prompt: 100, completion: 20 };
  return {
    id: 'chatcmpl-fixture',
    object: 'chat.completion',
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content ?? null,
          ...(reply.toolCalls
            ? {
                tool_calls: reply.toolCalls.map((c, i) => ({
                  id: c.id ?? `call_${i}`,
                  type: 'function',
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
        finish_reason: reply.finish ?? (reply.toolCalls ? 'tool_calls' : 'stop'),
      },
    ],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
      prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
    },
  };
}

export async function startOpenAiFixture(): Promise<OpenAiFixture> {
  const queue: FixtureReply[] = [];
  const requests: FixtureRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const fixture: OpenAiFixture = {
    baseUrl: '',
    requests,
    script: (...replies) => queue.push(...replies),
    fallback: null,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404).end('{"error":{"message":"not found"}}');
        return;
      }
      const request: FixtureRequest = { headers: req.headers, body: JSON.parse(raw) as FixtureRequest['body'] };
      requests.push(request);
      const reply = queue.shift() ??
        fixture.fallback?.(request) ?? { kind: 'status', status: 500, body: 'fixture: nothing scripted' };
      switch (reply.kind) {
        case 'hang':
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        case 'status':
          res
            .writeHead(reply.status, {
              'content-type': 'application/json',
              ...(reply.retryAfter ? { 'retry-after': reply.retryAfter } : {}),
            })
            .end(reply.body ?? '{"error":{"message":"fixture error"}}');
          return;
        case 'raw':
          res.writeHead(200, { 'content-type': 'application/json' }).end(reply.body);
          return;
        case 'message':
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(completion(reply, request.body.model)));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fixture.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fixture;
}
