/**
 * `t1lab policy serve` (issue 37) on loopback: the real CLI, its policy worker and onnxruntime session on the
 * bundled models/nano-sft, over real HTTP. The models list; a completion's prompt is the checkpoint's own
 * template tokenized as the lab tokenizes it; streaming gives the same text in SSE chunks ending in [DONE];
 * log-probs and usage; tool calls come back as `tool_calls`; concurrent requests share decoding steps; a
 * client that disconnects frees its row; bad input is a 4xx naming the field, and a barrage of malformed
 * requests leaves it serving; SIGTERM stops it with exit code 0.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatml } from '../../../electron/agent/chat/chatml';
import { compactHermesPrompt } from '../../../electron/agent/protocol/hermes';
import { AGENT_TOOLS } from '../../../electron/agent/protocol/tools';
import { loadTokenizerFile } from '../../../native/model/tokenizer';
import { REPO_ROOT } from '../../helpers/cli';
import { startPolicyServe, type ServeProcess } from '../../helpers/policy-serve';
import { rawRequest } from '../../helpers/raw-http';

const CHECKPOINT = join(REPO_ROOT, 'models', 'nano-sft');
const SYSTEM = compactHermesPrompt({ maxTurns: 6, timeoutSec: 600, toolsInTemplate: false });
const TASK = 'Count the lines of /app/data.csv that contain "error" and write the count to /app/count.txt.';
/** nano-sft answers this one with a short bash call (measured). */
const TOOL_TASK = 'Write the word hello to hello.txt.';

interface Json {
  [key: string]: unknown;
}

async function post(
  server: ServeProcess,
  body: unknown,
  path = '/chat/completions',
  init: RequestInit = {},
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

/** The SSE events of a streamed completion, as parsed JSON (and the literal [DONE]). */
async function streamed(server: ServeProcess, body: Json): Promise<(Json | '[DONE]')[]> {
  const res = await fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice('data: '.length))
    .map((d) => (d === '[DONE]' ? '[DONE]' : (JSON.parse(d) as Json)));
}

const choice = (body: Json) => (body.choices as Json[])[0] as Json;
const message = (body: Json) => choice(body).message as Json;

describe('t1lab policy serve (OpenAI chat completions)', () => {
  let server: ServeProcess;
  const tokenizer = loadTokenizerFile(CHECKPOINT);
  const chat = {
    model: 'nano-sft',
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: TASK },
    ],
    temperature: 0,
    max_tokens: 48,
  };

  beforeAll(async () => {
    server = await startPolicyServe([CHECKPOINT, '--max-concurrency', '8']);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('prints its URL, model and policy spec; lists the model with its context window', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server).toMatchObject({
      model: 'nano-sft',
      policy: `openai:${server.url}#nano-sft`,
      contextWindow: 2048,
      maxConcurrency: 8,
    });
    const list = (await (await fetch(`${server.url}/models`)).json()) as Json;
    expect(list).toMatchObject({
      object: 'list',
      data: [{ id: 'nano-sft', object: 'model', owned_by: 't1lab', max_model_len: 2048 }],
    });
    expect((await fetch(`${server.url}/models/nano-sft`)).status).toBe(200);
    const missing = await fetch(`${server.url}/models/gpt-9`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: Json }).error).toMatchObject({
      code: 'model_not_found',
      param: 'model',
    });
  });

  it("answers with the checkpoint template's prompt, usage and log-probs; greedy is reproducible", async () => {
    const r = await post(server, { ...chat, logprobs: true, top_logprobs: 3 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ object: 'chat.completion', model: 'nano-sft' });
    const usage = r.body.usage as { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    const prompt = chatml.render(
      [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: TASK },
      ],
      { addGenerationPrompt: true },
    );
    expect(usage.prompt_tokens).toBe(tokenizer.encode(prompt).length);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    const content = (
      choice(r.body).logprobs as {
        content: { token: string; logprob: number; top_logprobs: { token: string; logprob: number }[] }[];
      }
    ).content;
    expect(content).toHaveLength(usage.completion_tokens);
    for (const t of content) {
      expect(t.logprob).toBeLessThanOrEqual(0);
      expect(t.top_logprobs).toHaveLength(3);
      // Greedy: the token taken is the most likely one.
      expect(t.top_logprobs[0]!.token).toBe(t.token);
      expect(t.top_logprobs[0]!.logprob).toBeCloseTo(t.logprob, 4);
    }
    const again = await post(server, chat);
    expect(message(again.body).content ?? '').toBe(message(r.body).content ?? '');
  }, 60_000);

  it('the same seed at temperature 1 samples the same text; stop strings end it and are left out', async () => {
    const sampled = { ...chat, temperature: 1, seed: 1234, max_tokens: 32, ignore_eos: true };
    const a = await post(server, sampled);
    const b = await post(server, sampled);
    expect(message(a.body).content).toBe(message(b.body).content);
    const whole = message(a.body).content as string;
    const stop = whole.slice(10, 13);
    const cut = await post(server, { ...sampled, stop: [stop] });
    expect(message(cut.body).content).toBe(whole.slice(0, whole.indexOf(stop)));
    expect(choice(cut.body).finish_reason).toBe('stop');
    expect(choice(a.body).finish_reason).toBe('length');
  }, 60_000);

  it('streams the same text in SSE chunks, with log-probs, usage and [DONE]', async () => {
    const whole = await post(server, chat);
    const events = await streamed(server, { ...chat, logprobs: true, stream_options: { include_usage: true } });
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1) as Json[];
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === chunks[0]!.id)).toBe(true);
    expect((choice(chunks[0]!).delta as Json).role).toBe('assistant');
    const text = chunks.map((c) => ((c.choices as Json[])[0]?.delta as Json | undefined)?.content ?? '').join('');
    expect(text).toBe(message(whole.body).content);
    expect(chunks.length).toBeGreaterThan(4);
    const tokens = chunks.flatMap(
      (c) => (((c.choices as Json[])[0]?.logprobs as { content?: unknown[] } | null)?.content ?? []) as unknown[],
    );
    const usage = chunks.at(-1)!.usage as { completion_tokens: number };
    expect(chunks.at(-1)!.choices).toEqual([]);
    expect(tokens).toHaveLength(usage.completion_tokens);
    expect(choice(chunks.at(-2)!).finish_reason).toBe(choice(whole.body).finish_reason);
  }, 60_000);

  it('offers tools through the template and answers with tool_calls, also streamed', async () => {
    const withTools = {
      ...chat,
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: TOOL_TASK },
      ],
      max_tokens: 160,
      tools: AGENT_TOOLS,
    };
    const r = await post(server, withTools);
    expect(r.status).toBe(200);
    expect(choice(r.body).finish_reason).toBe('tool_calls');
    const calls = message(r.body).tool_calls as {
      id: string;
      type: string;
      function: { name: string; arguments: string };
    }[];
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ type: 'function', function: { name: 'bash' } });
    expect(JSON.parse(calls[0]!.function.arguments)).toHaveProperty('command');
    expect(message(r.body).content ?? '').not.toContain('<tool_call>');
    const events = (await streamed(server, withTools)).slice(0, -1) as Json[];
    const streamedCalls = events.flatMap(
      (c) => (((c.choices as Json[])[0]?.delta as Json | undefined)?.tool_calls ?? []) as Json[],
    );
    expect(streamedCalls).toEqual([{ index: 0, ...calls[0]!, id: expect.any(String) }]);
    expect(
      events.map((c) => ((c.choices as Json[])[0]?.delta as Json | undefined)?.content ?? '').join(''),
    ).not.toContain('<tool_call>');
    // The call and its answer go back into the next prompt, rendered by the template.
    const next = await post(server, {
      ...chat,
      messages: [
        ...withTools.messages,
        { role: 'assistant', content: null, tool_calls: calls },
        { role: 'tool', tool_call_id: calls[0]!.id, content: '3' },
      ],
      tools: AGENT_TOOLS,
    });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
  }, 90_000);

  it('decodes concurrent requests together in one batch', async () => {
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post(server, {
          ...chat,
          messages: [{ role: 'user', content: `${TASK} (${i})` }],
          max_tokens: 24,
          ignore_eos: true,
        }),
      ),
    );
    for (const r of replies) {
      expect(r.status).toBe(200);
      expect((r.body.usage as { completion_tokens: number }).completion_tokens).toBe(24);
    }
    const batches = replies.map((r) => (r.body.t1lab as { mean_batch: number }).mean_batch);
    expect(Math.max(...batches)).toBeGreaterThan(2);
  }, 90_000);

  it('a client that disconnects mid-stream frees its row', async () => {
    const stop = new AbortController();
    const res = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...chat, stream: true, max_tokens: 1500, ignore_eos: true }),
      signal: stop.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    stop.abort();
    const health = `${server.url.replace(/\/v1$/, '')}/health`;
    const end = Date.now() + 20_000;
    let inFlight = -1;
    while (Date.now() < end) {
      inFlight = ((await (await fetch(health)).json()) as { in_flight: number }).in_flight;
      if (inFlight === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(inFlight).toBe(0);
  }, 60_000);

  it("bad input is a 4xx in OpenAI's error shape, naming the field", async () => {
    const cases: [unknown, number, string | null][] = [
      ['{not json', 400, 'body'],
      ['[1]', 400, 'body'],
      [{ ...chat, model: 'gpt-9' }, 404, 'model'],
      [{ ...chat, temperature: 'hot' }, 400, 'temperature'],
      [{ ...chat, messages: [{ role: 'wizard', content: 'x' }] }, 400, 'messages[0].role'],
      [
        { ...chat, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] },
        400,
        'messages[0].content',
      ],
      [{ ...chat, n: 3 }, 400, 'n'],
      [{ ...chat, max_tokens: -1 }, 400, 'max_tokens'],
      [{ ...chat, messages: [{ role: 'user', content: 'word '.repeat(3000) }] }, 400, 'messages'],
      [JSON.stringify({ ...chat, messages: [{ role: 'user', content: 'x'.repeat(5 * 1024 * 1024) }] }), 413, null],
    ];
    for (const [body, status, param] of cases) {
      const r = await post(server, body).catch(() => ({
        status: 413,
        body: { error: { message: 'closed', param: null } } as Json,
      }));
      expect(r.status, String(typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 80)).toBe(status);
      const error = r.body.error as { message: string; param: string | null; type?: string };
      expect(typeof error.message).toBe('string');
      expect(error.param).toBe(param);
    }
    expect((await fetch(`${server.url}/chat/completions`)).status).toBe(405);
    expect((await fetch(`${server.url}/embeddings`, { method: 'POST' })).status).toBe(404);
  }, 60_000);

  it('a barrage of malformed and hostile requests leaves it serving', async () => {
    const port = Number(new URL(server.url).port);
    const h = `Host: 127.0.0.1:${port}\r\n`;
    const bodies = [
      '',
      '{',
      'null',
      '"x"',
      '1e999',
      '{"model":null}',
      '{"__proto__":{"x":1}}',
      '{"model":"nano-sft","messages":[{"role":"user","content":"\\udc80"}]}',
      Buffer.alloc(2048, 0xff).toString('latin1'),
    ];
    const raws: (string | Buffer)[] = [
      'GARBAGE\r\n\r\n',
      `GET /v1/models HTTP/1.1\r\n${h}${'X-A: b\r\n'.repeat(500)}\r\n`,
      `POST /v1/chat/completions HTTP/1.1\r\n${h}Content-Length: 999999999\r\n\r\n{`,
      `POST /v1/chat/completions HTTP/1.1\r\n${h}Transfer-Encoding: chunked\r\n\r\nzz\r\n`,
      Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x01]),
      ...bodies.map(
        (b) =>
          `POST /v1/chat/completions HTTP/1.1\r\n${h}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(b, 'latin1')}\r\nConnection: close\r\n\r\n${b}`,
      ),
    ];
    for (const bytes of raws) {
      const reply = await rawRequest(port, bytes, 5_000);
      if (reply.status !== null) expect(reply.status, String(bytes).slice(0, 80)).toBeLessThan(500);
    }
    expect((await fetch(`${server.url}/models`)).status).toBe(200);
  }, 120_000);

  it('SIGTERM stops it cleanly', async () => {
    expect(await server.stop()).toBe(0);
    await expect(fetch(`${server.url}/models`)).rejects.toThrow();
  }, 30_000);
});
