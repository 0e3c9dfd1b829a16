import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { createClient, type Client } from '../../../electron/ipc/common/client';
import { defineContract, method } from '../../../electron/ipc/common/define';
import { LabError } from '../../../electron/ipc/common/errors';
import { createMemoryPair } from '../../../electron/ipc/common/memory';
import { createRouter, readClientFrame, type Router } from '../../../electron/ipc/common/router';
import type { ServerConnection } from '../../../electron/ipc/common/transport';

const contract = defineContract({
  methods: {
    add: method(z.object({ a: z.number(), b: z.number() }), z.number(), 'Add two numbers.'),
    slow: method(z.object({ ms: z.number() }), z.string(), 'Wait, honouring cancellation.'),
    broken: method(z.object({}), z.number(), 'Returns a string: a handler bug.'),
    missing: method(z.object({ name: z.string() }), z.null(), 'Throws NOT_FOUND.'),
    secret: method(z.object({}), z.string(), 'Only for trusted peers.'),
    shout: method(z.object({ text: z.string() }), z.null(), 'Emit an event.'),
  },
  events: { said: z.object({ text: z.string() }) },
});
type C = typeof contract;

let cancelledWith: unknown = null;
function setup(maxFrameChars?: number) {
  const log: string[] = [];
  const router: Router<C> = createRouter<C>(
    contract,
    {
      add: ({ a, b }) => a + b,
      slow: ({ ms }, { signal }) =>
        new Promise((resolve, reject) => {
          const t = setTimeout(() => resolve('done'), ms);
          signal.addEventListener('abort', () => {
            clearTimeout(t);
            cancelledWith = signal.reason;
            reject(signal.reason);
          });
        }),
      broken: () => 'not a number' as unknown as number,
      missing: ({ name }) => {
        throw new LabError('NOT_FOUND', `no task named '${name}'`);
      },
      secret: () => 'ok',
      shout: ({ text }) => {
        router.emit('said', { text });
        return null;
      },
    },
    {
      maxFrameChars,
      authorize: (peer, m) => !(m === 'secret' && peer.kind === 'memory' && peer.label === 'untrusted'),
      log: (m) => log.push(m),
    },
  );
  return { router, log };
}

function connect(
  router: Router<C>,
  label = 'test',
): { client: Client<C>; server: ServerConnection; raw: (frame: string) => Promise<unknown> } {
  const { client: transport, server } = createMemoryPair(label);
  router.attach(server);
  const client = createClient<C>(transport);
  const raw = (frame: string) =>
    new Promise<unknown>((resolve) => {
      const sub = transport.onFrame((text) => {
        sub.dispose();
        resolve(JSON.parse(text));
      });
      transport.send(frame);
    });
  return { client, server, raw };
}

afterEach(() => {
  cancelledWith = null;
});

describe('router: every bad payload class gets its code and the host stays up', () => {
  test('a valid call answers with the result', async () => {
    const { client } = connect(setup().router);
    await expect(client.call('add', { a: 2, b: 3 })).resolves.toBe(5);
  });

  test('unknown method -> UNKNOWN_METHOD', async () => {
    const { client } = connect(setup().router);
    await expect(client.call('nope' as 'add', { a: 1, b: 2 })).rejects.toMatchObject({
      code: 'UNKNOWN_METHOD',
      message: "unknown method 'nope'",
    });
    await expect(client.call('add', { a: 1, b: 1 })).resolves.toBe(2);
  });

  test('payload failing its schema -> INVALID_PARAMS naming the field', async () => {
    const { client } = connect(setup().router);
    const error = (await client.call('add', { a: 1, b: 'two' } as never).catch((e) => e)) as LabError;
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toContain('b:');
    await expect(client.call('add', { a: 1, b: 1 })).resolves.toBe(2);
  });

  test('malformed JSON -> MALFORMED with a null id', async () => {
    const { client, raw } = connect(setup().router);
    await expect(raw('{"t":"req", oops')).resolves.toMatchObject({
      t: 'res',
      id: null,
      ok: false,
      error: { code: 'MALFORMED' },
    });
    await expect(client.call('add', { a: 1, b: 1 })).resolves.toBe(2);
  });

  test('JSON that is no known envelope -> MALFORMED', async () => {
    const { raw } = connect(setup().router);
    await expect(raw('{"t":"launch","id":"x1"}')).resolves.toMatchObject({
      id: 'x1',
      ok: false,
      error: { code: 'MALFORMED' },
    });
    await expect(raw('[1,2,3]')).resolves.toMatchObject({ id: null, ok: false, error: { code: 'MALFORMED' } });
  });

  test('oversize frame -> MESSAGE_TOO_LARGE, unparsed', async () => {
    const { router, log } = setup(1000);
    const { client, raw } = connect(router);
    const answer = await raw(
      JSON.stringify({ t: 'req', id: 'big', method: 'add', params: { a: 1, b: 2, pad: 'x'.repeat(2000) } }),
    );
    expect(answer).toMatchObject({ id: null, ok: false, error: { code: 'MESSAGE_TOO_LARGE' } });
    expect(log.some((l) => l.includes('refused'))).toBe(true);
    await expect(client.call('add', { a: 1, b: 1 })).resolves.toBe(2);
  });

  test('a sender that may not call the method -> FORBIDDEN', async () => {
    const { router } = setup();
    await expect(connect(router, 'untrusted').client.call('secret', {})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(connect(router, 'trusted').client.call('secret', {})).resolves.toBe('ok');
  });

  test('a handler error travels as data with its code', async () => {
    const { client } = connect(setup().router);
    await expect(client.call('missing', { name: 'hello-world' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: "no task named 'hello-world'",
    });
  });

  test('a handler returning data that fails its own schema -> INTERNAL, logged', async () => {
    const { router, log } = setup();
    await expect(connect(router).client.call('broken', {})).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(log.join('\n')).toContain("handler 'broken' returned data that fails its own schema");
  });
});

describe('cancellation and deadlines', () => {
  test('aborting a call cancels the handler on the host', async () => {
    const { client } = connect(setup().router);
    const controller = new AbortController();
    const pending = client.call('slow', { ms: 10_000 }, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
    await new Promise((r) => setTimeout(r, 20));
    expect(cancelledWith).toBeInstanceOf(LabError);
    expect((cancelledWith as LabError).code).toBe('CANCELLED');
  });

  test('a timeout rejects with TIMEOUT and cancels on the host', async () => {
    const { client } = connect(setup().router);
    await expect(client.call('slow', { ms: 10_000 }, { timeoutMs: 30 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    await new Promise((r) => setTimeout(r, 20));
    expect((cancelledWith as LabError).code).toBe('CANCELLED');
  });

  test('a closed connection rejects pending calls with DISCONNECTED and aborts handlers', async () => {
    const { client, server } = connect(setup().router);
    const pending = client.call('slow', { ms: 10_000 });
    await new Promise((r) => setTimeout(r, 20));
    server.close();
    await expect(pending).rejects.toMatchObject({ code: 'DISCONNECTED' });
    await new Promise((r) => setTimeout(r, 20));
    expect((cancelledWith as LabError).code).toBe('DISCONNECTED');
  });
});

describe('events', () => {
  test('only subscribed connections receive an event, until they unsubscribe', async () => {
    const { router } = setup();
    const a = connect(router).client;
    const b = connect(router).client;
    const got: string[] = [];
    const off = a.on('said', ({ text }) => got.push(text));
    await a.call('add', { a: 0, b: 0 }); // the subscription frame precedes this call on the same connection
    await b.call('shout', { text: 'one' });
    await new Promise((r) => setTimeout(r, 10));
    off();
    await a.call('add', { a: 0, b: 0 });
    await b.call('shout', { text: 'two' });
    await new Promise((r) => setTimeout(r, 10));
    expect(got).toEqual(['one']);
  });

  test('subscribing to an unknown event is reported', async () => {
    const { router } = setup();
    const { client } = connect(router);
    const errors: string[] = [];
    client.onProtocolError((m) => errors.push(m));
    client.on('nope' as 'said', () => {});
    await client.call('add', { a: 0, b: 0 });
    await new Promise((r) => setTimeout(r, 10));
    expect(errors.join()).toContain("unknown event 'nope'");
  });

  test('emitTo reaches one connection only', async () => {
    const { router } = setup();
    const a = connect(router);
    const b = connect(router);
    const got: string[] = [];
    a.client.on('said', ({ text }) => got.push(`a:${text}`));
    b.client.on('said', ({ text }) => got.push(`b:${text}`));
    await a.client.call('add', { a: 0, b: 0 });
    await b.client.call('add', { a: 0, b: 0 });
    router.emitTo(b.server.id, 'said', { text: 'hi' });
    await new Promise((r) => setTimeout(r, 10));
    expect(got).toEqual(['b:hi']);
  });
});

describe('readClientFrame: a frame text as an envelope or the error to answer it with', () => {
  test('a request envelope reads as its frame', () => {
    expect(readClientFrame('{"t":"req","id":"c1","method":"add","params":{"a":1}}', 1000)).toEqual({
      ok: true,
      frame: { t: 'req', id: 'c1', method: 'add', params: { a: 1 } },
    });
  });

  test('too large is refused before parsing, with no id', () => {
    expect(readClientFrame('{"t":"cancel","id":"c1"}', 10)).toMatchObject({
      ok: false,
      id: null,
      error: { code: 'MESSAGE_TOO_LARGE' },
    });
  });

  test('an unknown envelope keeps its id (at most 64 chars); an empty or missing id is null', () => {
    expect(readClientFrame(JSON.stringify({ t: 'launch', id: 'x'.repeat(100) }), 1000)).toMatchObject({
      ok: false,
      id: 'x'.repeat(64),
      error: { code: 'MALFORMED' },
    });
    expect(readClientFrame('{"t":"launch","id":""}', 1000)).toMatchObject({ ok: false, id: null });
    expect(readClientFrame('null', 1000)).toMatchObject({ ok: false, id: null, error: { code: 'MALFORMED' } });
    expect(readClientFrame('{oops', 1000)).toMatchObject({
      ok: false,
      id: null,
      error: { code: 'MALFORMED', message: expect.stringContaining('not JSON') },
    });
  });
});
