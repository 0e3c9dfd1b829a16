/**
 * The web host never dies from a request: a real `t1lab serve` process gets malformed, odd, oversized and
 * hostile HTTP requests, WebSocket upgrades and frames over raw sockets. After every case the process is
 * alive and the token still opens the UI. Malformed requests get 400, unauthenticated ones 401/403.
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startWebHost, type WebHost } from '../../../electron/web/server';
import { closedByPeer, rawRequest, rawWebSocket } from '../../helpers/raw-http';
import { startServe, type ServeProcess } from '../../helpers/serve';
import { makeTempDir } from '../../helpers/tmp';
import { connect } from 'node:net';

const home = makeTempDir('t1lab-fuzz-home-');
let serve: ServeProcess;
let port: number;
let hostHeader: string;
let good: string;

beforeAll(async () => {
  serve = await startServe({ env: { T1LAB_HOME: home.path } });
  const url = new URL(serve.url);
  port = Number(url.port);
  hostHeader = `Host: 127.0.0.1:${port}\r\n`;
  good = `token=${encodeURIComponent(serve.token)}`;
});
afterAll(async () => {
  await serve.stop();
  home.remove();
});

function getStatus(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Connection: 'close', ...headers } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The process is alive and the token still opens the UI. */
async function expectServing(): Promise<void> {
  expect(serve.child.exitCode).toBeNull();
  expect(serve.child.signalCode).toBeNull();
  const page = await getStatus(`/?${good}`);
  expect(page.status).toBe(200);
  expect(page.body).toContain('<div id="root">');
}

const req = (target: string, headers = '', method = 'GET') =>
  `${method} ${target} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`;

type HttpCase = [name: string, bytes: () => string | Buffer, statuses: (number | null)[]];
type UpgradeCase = [name: string, bytes: () => string, status: number];

describe('HTTP requests of any shape', () => {
  test.each<HttpCase>([
    // The two requests that used to kill the process (exit 1), with no token at all.
    [
      'a cookie with malformed percent-encoding',
      () => req('/', `${hostHeader}Cookie: t1lab_token=%E0%A4%A\r\n`),
      [400],
    ],
    ['the request target //[', () => req('//[', hostHeader), [400]],
    [
      'a malformed cookie next to a good query token',
      () => req(`/?${good}`, `${hostHeader}Cookie: a=b; t1lab_token=%ZZ\r\n`),
      [200],
    ],
    [
      'a malformed cookie with the wrong token in the query',
      () => req('/?token=nope', `${hostHeader}Cookie: t1lab_token=%\r\n`),
      [401],
    ],
    ['malformed percent-encoding in the query', () => req('/?token=%E0%A4%A', hostHeader), [401]],
    ['malformed percent-encoding in the path', () => req(`/%E0%A4%A?${good}`, hostHeader), [400]],
    ['an encoded NUL in the path', () => req(`/%00?${good}`, hostHeader), [404]],
    ['a path escaping the static root', () => req(`/..%2f..%2fetc%2fpasswd?${good}`, hostHeader), [404]],
    ['the target *', () => req('*', hostHeader, 'OPTIONS'), [400]],
    ['an absolute-form target', () => req(`http://127.0.0.1:${port}/?${good}`, hostHeader), [400]],
    ['a scheme-relative target', () => req(`//evil.example/?${good}`, hostHeader), [400]],
    ['a target with raw spaces and control bytes', () => `GET /a b\x01 HTTP/1.1\r\n${hostHeader}\r\n`, [400]],
    ['a target of 64 KiB', () => req(`/${'a'.repeat(65_536)}`, hostHeader), [400, 414, 431]],
    ['no Host header', () => req(`/?${good}`), [400, 403]],
    ['a foreign Host header', () => req(`/?${good}`, 'Host: evil.example\r\n'), [403]],
    ['two Host headers', () => req(`/?${good}`, `Host: evil.example\r\n${hostHeader}`), [400, 403]],
    ['a header of 32 KiB', () => req('/', `${hostHeader}X-Big: ${'x'.repeat(32_768)}\r\n`), [431]],
    [
      '3000 repeated cookie headers',
      () => req('/', `${hostHeader}${'Cookie: t1lab_token=%E0%A4%A\r\n'.repeat(3000)}`),
      [400, 431],
    ],
    ['1000 repeated empty cookie headers', () => req('/', `${hostHeader}${'Cookie: \r\n'.repeat(1000)}`), [401, 431]],
    ['an unknown method', () => req(`/?${good}`, hostHeader, 'BREW'), [400, 405]],
    [
      'POST with a body',
      () => `POST /?${good} HTTP/1.1\r\n${hostHeader}Content-Length: 5\r\nConnection: close\r\n\r\nhello`,
      [405],
    ],
    ['a lying Content-Length', () => `GET /?${good} HTTP/1.1\r\n${hostHeader}Content-Length: -1\r\n\r\n`, [400]],
    [
      'conflicting Content-Length and Transfer-Encoding',
      () => `GET / HTTP/1.1\r\n${hostHeader}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n`,
      [400],
    ],
    ['HTTP/0.9', () => 'GET /\r\n\r\n', [null, 400, 403]],
    ['HTTP/2 preface', () => 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', [null, 400, 505]],
    ['a TLS ClientHello', () => Buffer.from('160301002e0100002a0303' + '00'.repeat(40), 'hex'), [null, 400]],
    ['binary garbage', () => Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 97 + 13) % 256)), [null, 400]],
  ])('%s', async (_name, bytes, statuses) => {
    const reply = await rawRequest(port, bytes());
    expect(statuses).toContain(reply.status);
    await expectServing();
  });
});

describe('WebSocket upgrades of any shape', () => {
  const upgrade = (target: string, headers: string): string =>
    `GET ${target} HTTP/1.1\r\n${headers}Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`;
  test.each<UpgradeCase>([
    ['the target //[', () => upgrade('//[', hostHeader), 400],
    ['a malformed cookie and no token', () => upgrade('/ipc', `${hostHeader}Cookie: t1lab_token=%E0%A4%A\r\n`), 400],
    ['malformed percent-encoding in the path', () => upgrade(`/%E0%A4%A?${good}`, hostHeader), 400],
    ['no token', () => upgrade('/ipc', hostHeader), 401],
    ['a foreign Origin', () => upgrade(`/ipc?${good}`, `${hostHeader}Origin: http://evil.example\r\n`), 403],
    ['a foreign Host', () => upgrade(`/ipc?${good}`, 'Host: evil.example\r\n'), 403],
    ['another path', () => upgrade(`/elsewhere?${good}`, hostHeader), 404],
    ['a bad WebSocket version', () => upgrade(`/ipc?${good}`, hostHeader).replace('Version: 13', 'Version: 99'), 400],
    ['a bad WebSocket key', () => upgrade(`/ipc?${good}`, hostHeader).replace('dGhlIHNhbXBsZSBub25jZQ==', '!!'), 400],
    ['no WebSocket key', () => upgrade(`/ipc?${good}`, hostHeader).replace(/Sec-WebSocket-Key: [^\r]*\r\n/, ''), 400],
    [
      'Upgrade: not-websocket',
      () => upgrade(`/ipc?${good}`, hostHeader).replace('Upgrade: websocket', 'Upgrade: h2c'),
      400,
    ],
  ])('%s', async (_name, bytes, status) => {
    const reply = await rawRequest(port, bytes());
    expect(reply.status).toBe(status);
    await expectServing();
  });
});

describe('WebSocket frames after a good upgrade', () => {
  const mask = [0, 0, 0, 0];
  const lengthOf = (n: bigint) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(n);
    return [...b];
  };
  test.each([
    ['a reserved opcode', Buffer.from([0x83, 0x80, ...mask])],
    ['an unmasked frame', Buffer.from([0x81, 0x05, ...Buffer.from('hello')])],
    ['RSV bits without an extension', Buffer.from([0xc1, 0x80, ...mask])],
    ['a fragmented ping', Buffer.from([0x09, 0x80, ...mask])],
    ['a continuation with nothing to continue', Buffer.from([0x80, 0x80, ...mask])],
    ['text that is not UTF-8', Buffer.from([0x81, 0x82, ...mask, 0xc3, 0x28])],
    ['a close frame with an invalid code', Buffer.from([0x88, 0x82, ...mask, 0x03, 0xe7])],
    ['a 2^63 - 1 byte frame', Buffer.from([0x82, 0xff, ...lengthOf(2n ** 63n - 1n), ...mask])],
    ['a 1 GiB frame (over the size limit)', Buffer.from([0x82, 0xff, ...lengthOf(2n ** 30n), ...mask])],
  ])('%s: the connection is closed, the host keeps serving', async (_name, frame) => {
    const socket: Socket = await rawWebSocket(port, `/ipc?${good}`, hostHeader);
    const closed = closedByPeer(socket);
    socket.write(frame);
    const sent = await closed;
    // The server's close frame (opcode 8) says why, when it had the chance to send one.
    if (sent.length > 0) expect(sent[0]! & 0x0f).toBe(0x8);
    await expectServing();
  });
});

describe('idle connections are bounded in count and time', () => {
  test('t1lab serve keeps answering while 100 connections sit idle', async () => {
    const idle = await Promise.all(
      Array.from(
        { length: 100 },
        () =>
          new Promise<Socket>((resolve) => {
            const s = connect(port, '127.0.0.1', () => resolve(s));
            s.on('error', () => {});
          }),
      ),
    );
    try {
      await expectServing();
    } finally {
      for (const s of idle) s.destroy();
    }
  });

  test('past the connection cap new ones are dropped; idle ones get 408 and are closed; then the UI opens', async () => {
    const tmp = makeTempDir('t1lab-idle-');
    const staticDir = join(tmp.path, 'renderer');
    mkdirSync(staticDir);
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>T1 Lab</title>');
    const token = 'idle-token-0123456789abcdef';
    const web: WebHost = await startWebHost({
      attach: () => {},
      staticDir,
      token,
      limits: { headersTimeoutMs: 500, checkIntervalMs: 100, maxConnections: 20 },
    });
    try {
      const replies = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          // Connections arrive one after another so that the first 20 are the ones accepted.
          await new Promise((r) => setTimeout(r, i * 5));
          return rawRequest(web.port, Buffer.alloc(0), 20_000);
        }),
      );
      const timedOut = replies.filter((r) => r.status === 408).length;
      const dropped = replies.filter((r) => r.status === null && r.text === '').length;
      // Every connection ended by the host's own doing (none waited out our 20 s), at most 20 were served at once.
      expect(timedOut + dropped).toBe(50);
      expect(timedOut).toBeGreaterThan(0);
      expect(timedOut).toBeLessThanOrEqual(20);
      const page = await new Promise<number>((resolve, reject) => {
        request({ host: '127.0.0.1', port: web.port, path: `/?token=${token}` }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        })
          .on('error', reject)
          .end();
      });
      expect(page).toBe(200);
    } finally {
      await web.close();
      tmp.remove();
    }
  });
});

describe('a bug in a request handler', () => {
  test('is logged, and the process keeps serving (uncaught exception and unhandled rejection alike)', async () => {
    const token = 'throwing-token-0123456789abcdef';
    const fixture = fileURLToPath(new URL('../../fixtures/web/throwing-host.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
      env: { ...process.env, T1LAB_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const hostPort = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => resolve(Number(d.toString().trim())));
        child.on('exit', (code) => reject(new Error(`the fixture exited (${code}): ${stderr}`)));
      });
      for (let i = 0; i < 3; i++) {
        const socket = await rawWebSocket(hostPort, `/ipc?token=${token}`, `Host: 127.0.0.1:${hostPort}\r\n`);
        await closedByPeer(socket);
      }
      const reply = await rawRequest(hostPort, req(`/?token=${token}`, `Host: 127.0.0.1:${hostPort}\r\n`));
      expect(reply.status).toBe(200);
      expect(child.exitCode).toBeNull();
      expect(stderr).toContain('boom at once');
      expect(stderr).toContain('boom later, outside any try');
      expect(stderr).toContain('boom as a rejection');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
