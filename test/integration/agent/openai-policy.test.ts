import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAiPolicy } from '../../../electron/agent/policy/openai';
import { PolicyError, type PolicyEpisode } from '../../../electron/agent/policy/types';
import { createProtocol } from '../../../electron/agent/protocol';
import { AGENT_TOOLS } from '../../../electron/agent/protocol/tools';
import type { ChatMessage } from '../../../electron/domain/trajectory';
import { startOpenAiFixture, type OpenAiFixture } from '../../helpers/openai-fixture';

const messages: ChatMessage[] = [
  { role: 'system', content: 'sys' },
  { role: 'user', content: 'make a file' },
];
const fastRetry = { timeoutMs: 300, maxRetries: 2, baseDelayMs: 10, maxDelayMs: 50 };

describe('openai policy against a local OpenAI-compatible server', () => {
  let fixture: OpenAiFixture;
  beforeAll(async () => {
    fixture = await startOpenAiFixture();
  });
  afterAll(() => fixture.close());

  async function episode(options: Parameters<typeof createOpenAiPolicy>[1] = {}): Promise<PolicyEpisode> {
    const policy = createOpenAiPolicy(`openai:${fixture.baseUrl}#fixture-model`, {
      retry: fastRetry,
      env: { FIXTURE_KEY: 'sk-test-123' },
      apiKeyEnv: 'FIXTURE_KEY',
      ...options,
    });
    return policy.startEpisode({
      taskId: 't',
      instruction: 'make a file',
      solutionCommands: null,
      agentTimeoutSec: 60,
      protocol: createProtocol(policy.protocol),
      seed: 7,
    });
  }
  const ask = (ep: PolicyEpisode, tools = AGENT_TOOLS) =>
    ep.turn({ messages, tools, signal: new AbortController().signal, turn: 0 });

  it('sends tools, temperature, seed and the API key; returns tool calls, usage and cost', async () => {
    fixture.requests.length = 0;
    fixture.script({
      kind: 'message',
      content: 'creating',
      toolCalls: [{ id: 'call_a', name: 'bash', arguments: '{"command":"touch a"}' }],
      usage: { prompt: 1000, completion: 50, cached: 400 },
    });
    const ep = await episode({ temperature: 0.3, prices: { inputPerMTok: 2, outputPerMTok: 10, cachedPerMTok: 0.5 } });
    const reply = await ask(ep);
    expect(reply.toolCalls).toEqual([{ id: 'call_a', name: 'bash', arguments: '{"command":"touch a"}' }]);
    expect(reply.text).toBe('creating');
    expect(reply.usage).toEqual({ prompt: 1000, completion: 50, cached: 400 });
    expect(reply.costUsd).toBeCloseTo((600 * 2 + 400 * 0.5 + 50 * 10) / 1e6, 12);
    expect(reply.finishReason).toBe('tool_calls');
    const sent = fixture.requests[0]!;
    expect(sent.headers.authorization).toBe('Bearer sk-test-123');
    expect(sent.body).toMatchObject({ model: 'fixture-model', temperature: 0.3, seed: 7 });
    expect((sent.body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
      'bash',
      'keys',
      'submit',
    ]);
  });

  it('text protocol: no tools sent, tool results go back as <tool_response> user turns', async () => {
    fixture.requests.length = 0;
    fixture.script({ kind: 'message', content: '<tool_call>{"name":"submit","arguments":{}}</tool_call>' });
    const ep = await episode({ protocol: 'hermes' });
    const reply = await ep.turn({
      messages: [
        ...messages,
        { role: 'assistant', content: '<tool_call>{"name":"bash","arguments":{"command":"ls"}}</tool_call>' },
        { role: 'tool', content: 'a.txt' },
      ],
      tools: [],
      signal: new AbortController().signal,
      turn: 1,
    });
    expect(createProtocol('hermes').parse(reply).actions).toEqual([{ tool: 'submit' }]);
    const sent = fixture.requests[0]!.body;
    expect(sent.tools).toBeUndefined();
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: '<tool_response>\na.txt\n</tool_response>' });
  });

  it('retries a 429 (honouring Retry-After) and a 503, then succeeds', async () => {
    fixture.requests.length = 0;
    fixture.script(
      { kind: 'status', status: 429, retryAfter: '0' },
      { kind: 'status', status: 503 },
      { kind: 'message', content: 'ok' },
    );
    const reply = await ask(await episode());
    expect(reply.text).toBe('ok');
    expect(fixture.requests).toHaveLength(3);
  });

  it('gives up on a server that never answers, after its retries', async () => {
    fixture.requests.length = 0;
    fixture.script({ kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' });
    await expect(ask(await episode())).rejects.toThrow(/gave up after 3 attempts; last: no answer within 300 ms/);
    expect(fixture.requests).toHaveLength(3);
  });

  it('does not retry a 400, and reports a malformed completion', async () => {
    fixture.requests.length = 0;
    fixture.script({ kind: 'status', status: 400, body: '{"error":{"message":"bad model"}}' });
    await expect(ask(await episode())).rejects.toThrow(/refused the request: HTTP 400: .*bad model/);
    expect(fixture.requests).toHaveLength(1);
    fixture.script({ kind: 'raw', body: '{"choices": []}' });
    await expect(ask(await episode())).rejects.toThrow(PolicyError);
    fixture.script({ kind: 'raw', body: 'not json' });
    await expect(ask(await episode())).rejects.toThrow(/not JSON/);
  });

  it('malformed tool-call output from the model parses into an explanation for the agent', async () => {
    fixture.script({ kind: 'message', toolCalls: [{ name: 'bash', arguments: '{"command": "ls' }] });
    const reply = await ask(await episode());
    expect(createProtocol('tools').parse(reply).error).toMatch(/not valid JSON/);
  });

  it('stops waiting at once when the episode is cancelled', async () => {
    fixture.script({ kind: 'hang' });
    const ep = await episode({ retry: { timeoutMs: 60_000 } });
    const controller = new AbortController();
    const pending = ep.turn({ messages, tools: [], signal: controller.signal, turn: 0 });
    setTimeout(() => controller.abort(new Error('cancelled by test')), 50);
    await expect(pending).rejects.toThrow(/cancelled by test/);
  });

  it('refuses a spec without a model, and an unset key variable', () => {
    expect(() => createOpenAiPolicy('openai:http://127.0.0.1:1/v1')).toThrow(/openai:BASE_URL#MODEL/);
    expect(() => createOpenAiPolicy('openai:ftp://x#m')).toThrow(/not an http\(s\) URL/);
    expect(() => createOpenAiPolicy(`openai:${fixture.baseUrl}#m`, { apiKeyEnv: 'NOPE_NOT_SET', env: {} })).toThrow(
      /NOPE_NOT_SET/,
    );
  });
});
