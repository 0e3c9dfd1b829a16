/**
 * The environment service (issue 37) on loopback, in process, over the lab's bubblewrap sandboxes: the
 * OpenEnv calls drive a whole episode (reset gives the instruction and the first screen; steps run the
 * oracle's commands; submit runs the verifier and gives the three rewards with each assertion's verdict);
 * the admin token issues per-session tokens that reach only their own session and never appear in logs or
 * records; limits (max sessions with 429 + Retry-After, idle timeout, TTL, a WebSocket that closes) end
 * sessions with their sandbox and their record; bad input is a 4xx; a barrage of malformed requests
 * leaves it serving. The episodes are in a run folder like the lab's own.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { containerSettings } from '../../../electron/lab/containers/settings';
import { EnvService } from '../../../electron/lab/env/service';
import { startEnvServer, type EnvServer } from '../../../electron/lab/env/server';
import { loadTaskSource, solutionCommands, type Task } from '../../../electron/lab/tasks';
import type { EpisodeRecord } from '../../../electron/domain/runs';
import { REPO_ROOT } from '../../helpers/cli';
import { rawRequest } from '../../helpers/raw-http';
import { makeTempDir } from '../../helpers/tmp';

const ADMIN = 'admin-token-for-tests-0123456789';

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(
  server: EnvServer,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
): Promise<Reply> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const records = (dir: string) =>
  readFileSync(join(dir, 'episodes.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as EpisodeRecord);

async function until<T>(what: () => T | undefined | null | false, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every file under a folder, as text (to look for tokens). */
function allText(dir: string): string {
  let out = '';
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out += allText(p);
    else if (e.isFile() && statSync(p).size < 8 * 1024 * 1024) out += readFileSync(p, 'latin1');
  }
  return out;
}

describe('t1lab env serve (OpenEnv protocol)', () => {
  let tmp: { path: string; remove(): void };
  let tasks: Task[];
  let service: EnvService;
  let server: EnvServer;
  const logs: string[] = [];
  const tokens: string[] = [];
  const runDir = () => service.runDir;

  const session = async (): Promise<string> => {
    const created = await call(server, 'POST', '/sessions', ADMIN);
    expect(created.status).toBe(201);
    const token = created.body.token as string;
    tokens.push(token);
    return token;
  };

  beforeAll(async () => {
    tmp = makeTempDir('t1lab-env-');
    tasks = (await loadTaskSource(join(REPO_ROOT, 'tasks/suites/id-nano.jsonl'))).tasks.slice(0, 3);
    service = new EnvService({
      tasks,
      suite: 'id-nano',
      runDir: join(tmp.path, 'run'),
      adminToken: ADMIN,
      maxSessions: 3,
      idleSec: 3,
      ttlSec: 120,
      containers: containerSettings({ backend: 'bubblewrap', dataDir: tmp.path }),
      tmpDir: tmp.path,
      log: (l) => logs.push(l),
    });
    server = await startEnvServer({ service, host: '127.0.0.1', port: 0, log: (l) => logs.push(l) });
  }, 60_000);
  afterAll(async () => {
    await server.close();
    tmp.remove();
  });

  it('runs an episode: reset gives the instruction and the screen, steps run commands, submit gives the verdict and three rewards', async () => {
    const task = tasks[0] as Task;
    const token = await session();
    const reset = await call(server, 'POST', '/reset', token, { task_id: task.id });
    expect(reset.status).toBe(200);
    expect(reset.body.done).toBe(false);
    const obs = reset.body.observation as Record<string, unknown>;
    expect(obs.instruction).toBe(task.instruction);
    expect(obs.task_id).toBe(task.id);
    expect(Array.isArray(obs.screen)).toBe(true);
    const state = await call(server, 'GET', '/state', token);
    expect(state.body).toMatchObject({ task_id: task.id, step_count: 0, done: false });
    const echo = await call(server, 'POST', '/step', token, { action: { command: 'echo hello-from-env' } });
    expect(echo.status).toBe(200);
    expect((echo.body.observation as { output: string }).output).toContain('hello-from-env');
    expect((echo.body.observation as { exit_code: number }).exit_code).toBe(0);
    expect((echo.body.observation as { screen: string[] }).screen.join('\n')).toMatch(/[#$]/);
    // A command that reads the terminal comes back at once, left running, and takes keystrokes.
    const reading = await call(server, 'POST', '/step', token, { action: { command: 'cat', timeout_s: 60 } });
    expect(reading.body.observation).toMatchObject({ waiting_for_input: true, timed_out: false, exit_code: null });
    const typed = await call(server, 'POST', '/step', token, {
      action: { keystrokes: ['typed-line', 'Enter', 'C-d'], duration_s: 1 },
    });
    expect((typed.body.observation as { output: string }).output).toContain('typed-line');
    for (const command of solutionCommands(task)) {
      const step = await call(server, 'POST', '/step', token, { action: { command, timeout_s: 60 } });
      expect(step.status, JSON.stringify(step.body)).toBe(200);
      expect(step.body.done).toBe(false);
    }
    const done = await call(server, 'POST', '/step', token, { action: { submit: true } });
    expect(done.status).toBe(200);
    expect(done.body.done).toBe(true);
    const final = done.body.observation as {
      resolved: boolean;
      rewards: { dense: number; fraction: number; binary: number };
      verifier: { total: number; assertions: { status: string }[] };
    };
    expect(final.resolved).toBe(true);
    expect(final.rewards).toEqual({ dense: final.verifier.total, fraction: 1, binary: 1 });
    expect(done.body.reward).toBe(final.verifier.total);
    expect(final.verifier.assertions.every((a) => a.status === 'passed')).toBe(true);
    // After done: a clear 409, until a reset.
    const after = await call(server, 'POST', '/step', token, { action: { command: 'ls' } });
    expect(after.status).toBe(409);
    expect((after.body.error as { message: string }).message).toMatch(/done.*reset/);
    // Recorded like the lab's own runs: a record, its trajectory, recording and verifier output.
    const record = await until(() => records(runDir()).find((r) => r.taskId === task.id && r.resolved));
    expect(record.stopReason).toBe('submitted');
    const files = readdirSync(join(runDir(), record.dir));
    expect(files).toEqual(expect.arrayContaining(['trajectory.json', 'recording.cast']));
    expect(JSON.parse(readFileSync(join(runDir(), 'run.json'), 'utf8'))).toMatchObject({
      config: { kind: 'eval', policy: 'env:remote' },
    });
    await call(server, 'DELETE', '/session', token);
  }, 180_000);

  it('tokens: the admin token issues sessions; a session token reaches only its session; unknown tokens get 401', async () => {
    expect((await call(server, 'POST', '/sessions', null)).status).toBe(401);
    expect((await call(server, 'POST', '/sessions', 'wrong-token-wrong-token')).status).toBe(401);
    const a = await session();
    const b = await session();
    expect(a).not.toBe(b);
    const sa = (await call(server, 'GET', '/state', a)).body.session_id;
    const sb = (await call(server, 'GET', '/state', b)).body.session_id;
    expect(sa).not.toBe(sb);
    // The admin token is not a session token, and a session token cannot issue sessions.
    expect((await call(server, 'POST', '/reset', ADMIN, {})).status).toBe(401);
    expect((await call(server, 'POST', '/sessions', a)).status).toBe(401);
    // The oracle is the admin's to read (an SFT warm start, a check of the service), never a session's.
    const id = encodeURIComponent((tasks[0] as Task).id);
    expect((await call(server, 'GET', `/tasks/${id}/oracle`, a)).status).toBe(401);
    expect((await call(server, 'GET', `/tasks/${id}/oracle`, ADMIN)).body.commands).toEqual(
      solutionCommands(tasks[0] as Task),
    );
    expect((await call(server, 'GET', '/tasks/nope/oracle', ADMIN)).status).toBe(404);
    expect((await call(server, 'DELETE', '/session', a)).status).toBe(200);
    expect((await call(server, 'GET', '/state', a)).status).toBe(401);
    await call(server, 'DELETE', '/session', b);
  });

  it('limits: past max sessions a 429 with Retry-After; an idle session is ended with its sandbox and its record', async () => {
    await until(() => service.activeSessions() === 0, 15_000);
    const held = [await session(), await session(), await session()];
    const refused = await call(server, 'POST', '/sessions', ADMIN);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // One starts an episode and goes quiet: the idle timeout (3 s) ends it, sandbox and all.
    const before = records(runDir()).length;
    expect((await call(server, 'POST', '/reset', held[0] as string, { seed: 1 })).status).toBe(200);
    await until(() => records(runDir()).length > before, 30_000);
    const record = records(runDir()).at(-1) as EpisodeRecord;
    expect(record.stopReason).toBe('cancelled');
    await until(() => service.activeSessions() === 0, 15_000);
    expect((await call(server, 'GET', '/state', held[0] as string)).status).toBe(401);
    expect((await call(server, 'POST', '/sessions', ADMIN)).status).toBe(201);
  }, 90_000);

  it('a session past its time-to-live is ended mid-episode, with its sandbox and its record', async () => {
    const short = new EnvService({
      tasks,
      suite: 'id-nano',
      runDir: join(tmp.path, 'run-ttl'),
      adminToken: ADMIN,
      maxSessions: 1,
      idleSec: 600,
      ttlSec: 3,
      containers: containerSettings({ backend: 'bubblewrap', dataDir: tmp.path }),
      tmpDir: tmp.path,
      log: (l) => logs.push(l),
    });
    const other = await startEnvServer({ service: short, host: '127.0.0.1', port: 0 });
    try {
      const created = await call(other, 'POST', '/sessions', ADMIN);
      const token = created.body.token as string;
      tokens.push(token);
      expect((await call(other, 'POST', '/sessions', ADMIN)).headers.get('retry-after')).toMatch(/^[1-3]$/);
      expect((await call(other, 'POST', '/reset', token, { seed: 0 })).status).toBe(200);
      const [record] = await until(() => (records(short.runDir).length ? records(short.runDir) : null), 30_000);
      expect(record?.stopReason).toBe('cancelled');
      expect(logs.some((l) => /time-to-live reached/.test(l))).toBe(true);
      expect((await call(other, 'POST', '/step', token, { action: { command: 'ls' } })).status).toBe(401);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('a WebSocket session: reset, step and state as OpenEnv messages; closing it ends the session', async () => {
    const token = await session();
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const replies: { type: string; data: Record<string, unknown> }[] = [];
    ws.on('message', (d) => replies.push(JSON.parse(d.toString()) as (typeof replies)[number]));
    await new Promise((r) => ws.once('open', r));
    const next = async (n: number) => until(() => replies.length >= n && replies[n - 1], 60_000);
    ws.send(JSON.stringify({ type: 'reset', data: { task_id: (tasks[1] as Task).id } }));
    expect((await next(1)).type).toBe('observation');
    ws.send(JSON.stringify({ type: 'step', data: { command: 'pwd' } }));
    const step = await next(2);
    expect(step.type).toBe('observation');
    expect((step.data.observation as { output: string }).output).toMatch(/\//);
    ws.send('not json');
    expect((await next(3)).type).toBe('error');
    ws.send(JSON.stringify({ type: 'step', data: { rm: '-rf' } }));
    expect(await next(4)).toMatchObject({ type: 'error', data: { code: 400 } });
    ws.send(JSON.stringify({ type: 'state' }));
    expect(await next(5)).toMatchObject({ type: 'state', data: { step_count: 1 } });
    const count = records(runDir()).length;
    ws.close();
    await until(() => records(runDir()).length > count, 30_000);
    expect((await call(server, 'GET', '/state', token)).status).toBe(401);
    // The admin token on /ws opens a session for the connection's life.
    const before = service.activeSessions();
    const admin = new WebSocket(`${server.url.replace('http', 'ws')}/ws`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const adminReplies: { type: string; data: Record<string, unknown> }[] = [];
    admin.on('message', (d) => adminReplies.push(JSON.parse(d.toString()) as (typeof adminReplies)[number]));
    await new Promise((r) => admin.once('open', r));
    expect(service.activeSessions()).toBe(before + 1);
    admin.send(JSON.stringify({ type: 'state' }));
    expect(await until(() => adminReplies[0], 10_000)).toMatchObject({ type: 'state', data: { step_count: 0 } });
    admin.send(JSON.stringify({ type: 'close' }));
    // Closing removes the session's sandbox and writes its record: seconds on a loaded machine (CI saw > 10 s).
    await until(() => service.activeSessions() === before, 60_000);
    // A WebSocket without a valid token is refused before the upgrade.
    const bad = new WebSocket(`${server.url.replace('http', 'ws')}/ws`, {
      headers: { authorization: 'Bearer nope-nope-nope' },
    });
    const code = await new Promise<number>((r) => bad.on('unexpected-response', (_req, res) => r(res.statusCode ?? 0)));
    expect(code).toBe(401);
  }, 120_000);

  it('bad input is a 4xx with a message', async () => {
    const token = await session();
    const cases: [string, string, unknown, number][] = [
      ['POST', '/step', { action: { command: 'ls' } }, 409], // before any reset
      ['POST', '/reset', { task_id: 'no-such-task' }, 404],
      ['POST', '/reset', '{not json', 400],
      ['POST', '/reset', '[1,2]', 400],
      ['POST', '/reset', { seed: -3 }, 400],
      ['POST', '/step', { action: { command: '' } }, 400],
      ['POST', '/step', { action: 'ls' }, 400],
      ['POST', '/step', { action: { keystrokes: [] } }, 400],
      ['GET', '/reset', undefined, 405],
      ['GET', '/nowhere', undefined, 404],
      ['POST', '/reset', JSON.stringify({ task_id: 'x'.repeat(300 * 1024) }), 413],
    ];
    for (const [method, path, body, status] of cases) {
      const reply = await call(server, method, path, token, body).catch(() => ({
        status: 413,
        body: { error: { message: 'closed' } },
        headers: new Headers(),
      }));
      expect(reply.status, `${method} ${path} ${String(JSON.stringify(body)).slice(0, 60)}`).toBe(status);
      expect(typeof (reply.body.error as { message?: string })?.message).toBe('string');
    }
    await call(server, 'DELETE', '/session', token);
  });

  it('a barrage of malformed and hostile requests leaves it serving', async () => {
    const port = server.port;
    const h = `Host: 127.0.0.1:${port}\r\n`;
    const bodies = [
      '',
      '{',
      'null',
      '"x"',
      '1e999',
      '{"action":{"command":null}}',
      '{"__proto__":{"admin":true}}',
      Buffer.alloc(4096, 0xff).toString('latin1'),
    ];
    const raws: (string | Buffer)[] = [
      'GARBAGE\r\n\r\n',
      `GET /health HTTP/1.1\r\n${h}${'X-A: b\r\n'.repeat(500)}\r\n`,
      `POST /reset HTTP/1.1\r\n${h}Authorization: Bearer ${'a'.repeat(5000)}\r\nContent-Length: 2\r\n\r\n{}`,
      `POST /step HTTP/1.1\r\n${h}Content-Length: 999999999\r\n\r\n{`,
      `POST /sessions HTTP/1.1\r\n${h}Transfer-Encoding: chunked\r\n\r\nzz\r\n`,
      `GET /ws HTTP/1.1\r\n${h}Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: x\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      `GET /ws HTTP/1.1\r\n${h}Upgrade: websocket\r\nConnection: Upgrade\r\nAuthorization: Bearer ${ADMIN}\r\nSec-WebSocket-Version: 99\r\n\r\n`,
      Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x01]),
      ...bodies.flatMap((b) =>
        ['/reset', '/step', '/sessions', '/session', '/state'].map(
          (p) =>
            `POST ${p} HTTP/1.1\r\n${h}Authorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(b, 'latin1')}\r\nConnection: close\r\n\r\n${b}`,
        ),
      ),
    ];
    for (const bytes of raws) {
      const reply = await rawRequest(port, bytes, 5_000);
      if (reply.status !== null) expect(reply.status, String(bytes).slice(0, 80)).toBeLessThan(500);
      expect((await call(server, 'GET', '/health', null)).status).toBe(200);
    }
  }, 120_000);

  it('never writes a token to its logs or its records', () => {
    const text = logs.join('\n') + allText(runDir());
    for (const token of [ADMIN, ...tokens]) expect(text.includes(token)).toBe(false);
  });
});
