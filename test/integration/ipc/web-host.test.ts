import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { createClient } from '../../../electron/ipc/common/client';
import type { LabContract } from '../../../electron/ipc/common/contract';
import { createWebSocketClientTransport, type WebSocketLike } from '../../../electron/ipc/common/websocket-client';
import { createLabHost, type LabHost } from '../../../electron/lab/host';
import { forkLauncher } from '../../../electron/processes/launcher';
import { startWebHost, type WebHost } from '../../../electron/web/server';
import { makeTempDir } from '../../helpers/tmp';

const TOKEN = 'test-token-0123456789abcdef';
let lab: LabHost;
let web: WebHost;
let tmp: ReturnType<typeof makeTempDir>;

beforeAll(async () => {
  tmp = makeTempDir();
  const staticDir = join(tmp.path, 'renderer');
  mkdirSync(join(staticDir, 'assets'), { recursive: true });
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>T1 Lab</title>');
  writeFileSync(join(staticDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(tmp.path, 'secret.txt'), 'outside the static root');
  lab = createLabHost({ dataDir: join(tmp.path, 'data'), launcher: forkLauncher, maxFrameChars: 4096, log: () => {} });
  web = await startWebHost({ attach: (c) => lab.attach(c), staticDir, token: TOKEN, maxFrameChars: 4096 });
});

afterAll(async () => {
  await web.close();
  await lab.dispose();
  tmp.remove();
});

function get(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: web.port, path, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function upgrade(
  query: string,
  headers: Record<string, string> = {},
): Promise<{ status: number } | { socket: WebSocket }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${web.port}/ipc${query}`, { headers });
    ws.on('open', () => resolve({ socket: ws }));
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    ws.on('error', () => {});
  });
}

function rawExchange(ws: WebSocket, frame: string): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    ws.once('message', (data) => resolve(JSON.parse(data.toString()) as Record<string, unknown>));
    ws.send(frame);
  });
}

describe('web host: HTTP', () => {
  test('the URL it reports carries the token and names loopback', () => {
    expect(web.url).toBe(`http://127.0.0.1:${web.port}/?token=${TOKEN}`);
  });

  test('no token or a wrong token -> 401', async () => {
    expect((await get('/')).status).toBe(401);
    expect((await get('/?token=wrong-token-0123456789')).status).toBe(401);
    expect((await get('/assets/app.js')).status).toBe(401);
  });

  test('the right token serves the page with a CSP and sets the cookie; the cookie alone then works', async () => {
    const page = await get(`/?token=${TOKEN}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<title>T1 Lab</title>');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const cookie = String(page.headers['set-cookie']);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const asset = await get('/assets/app.js', { cookie: cookie.split(';')[0] as string });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toContain('javascript');
  });

  test('a foreign Host header (DNS rebinding) -> 403', async () => {
    expect((await get(`/?token=${TOKEN}`, { host: `evil.example:${web.port}` })).status).toBe(403);
  });

  test('paths never escape the static root', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt']) {
      const res = await get(`${path}${path.includes('?') ? '&' : '?'}token=${TOKEN}`);
      expect(res.body).not.toContain('outside the static root');
    }
  });
});

describe('web host: WebSocket', () => {
  test('an upgrade without the token -> 401', async () => {
    expect(await upgrade('')).toEqual({ status: 401 });
  });

  test('an upgrade from a foreign Origin -> 403, even with the token', async () => {
    expect(await upgrade(`?token=${TOKEN}`, { origin: 'http://evil.example' })).toEqual({ status: 403 });
  });

  test('with the token and its own Origin it serves the contract', async () => {
    const result = await upgrade(`?token=${TOKEN}`, { origin: `http://127.0.0.1:${web.port}` });
    expect('socket' in result).toBe(true);
    const ws = (result as { socket: WebSocket }).socket;
    const client = createClient<LabContract>(createWebSocketClientTransport(ws as unknown as WebSocketLike));
    await expect(client.call('system.ping', { echo: 'hi' })).resolves.toMatchObject({ echo: 'hi' });
    client.close();
  });

  test('bad frames over a real socket get coded errors and the host stays up', async () => {
    const result = (await upgrade(`?token=${TOKEN}`)) as { socket: WebSocket };
    const ws = result.socket;
    expect(await rawExchange(ws, 'not json')).toMatchObject({ ok: false, error: { code: 'MALFORMED' } });
    expect(
      await rawExchange(ws, JSON.stringify({ t: 'req', id: 'a', method: 'system.nope', params: {} })),
    ).toMatchObject({ id: 'a', error: { code: 'UNKNOWN_METHOD' } });
    expect(
      await rawExchange(ws, JSON.stringify({ t: 'req', id: 'b', method: 'system.ping', params: { echo: 42 } })),
    ).toMatchObject({ id: 'b', error: { code: 'INVALID_PARAMS' } });
    expect(
      await rawExchange(
        ws,
        JSON.stringify({ t: 'req', id: 'c', method: 'system.ping', params: { echo: 'x'.repeat(5000) } }),
      ),
    ).toMatchObject({
      id: null,
      error: { code: 'MESSAGE_TOO_LARGE' },
    });
    expect(
      await rawExchange(
        ws,
        JSON.stringify({ t: 'req', id: 'd', method: 'system.ping', params: { echo: 'still here' } }),
      ),
    ).toMatchObject({
      id: 'd',
      ok: true,
      result: { echo: 'still here' },
    });
    ws.close();
  });
});
