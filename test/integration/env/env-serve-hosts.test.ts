/**
 * The environment service with its container episodes on engine hosts (`env serve --hosts`, issues 36
 * and 37), on real engines: two podman API services of the test's own (separate sockets and storage),
 * one slot each. Two sessions run the oracle at once, one on each host; their rewards equal the lab's own
 * evaluation of the same tasks; the records name the hosts; sessions are bounded by the hosts' slots (429
 * with Retry-After); no lab container is left on a host after an episode ends, after a session is deleted
 * mid-episode, or after a WebSocket client disappears mid-episode. Last, the podman service under a running
 * episode is killed: the next step is a 502 that names the host (the service answers on), the episode is
 * recorded as an infrastructure error, and the next reset runs on the other host. Skipped, with the
 * reason, where podman, mmdebstrap or root is missing.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { HostConfig } from '../../../native/sandbox/container/api/client';
import type { EpisodeRecord } from '../../../electron/domain/runs';
import type { ContainerSettings } from '../../../electron/lab/containers/settings';
import { EnvHosts } from '../../../electron/lab/env/hosts';
import { startEnvServer, type EnvServer } from '../../../electron/lab/env/server';
import { EnvService } from '../../../electron/lab/env/service';
import { openHostPool } from '../../../electron/lab/hosts/placement';
import { addHost, installId } from '../../../electron/lab/hosts/store';
import { startEvaluation } from '../../../electron/lab/runs/evaluate';
import { loadTaskSource, solutionCommands, type Task } from '../../../electron/lab/tasks';
import { REPO_ROOT } from '../../helpers/cli';
import { podmanServiceSkip, startPodmanService, tinyRootfs, type PodmanService } from '../../helpers/podman-service';
import { makeTempDir } from '../../helpers/tmp';

const skip = podmanServiceSkip();
if (skip) console.warn(`env serve over engine hosts skipped: ${skip}`);

const ADMIN = 'admin-token-for-host-tests-0123456789';
/** On this machine's podman (the lab resolves task images there and sends them to the hosts). */
const TINY = 'localhost/t1lab-test-env-tiny:v1';

function writeTask(dir: string, word: string): void {
  mkdirSync(join(dir, 'solution'), { recursive: true });
  writeFileSync(join(dir, 'instruction.md'), `Write the word ${word} into answer.txt in the current directory.\n`);
  writeFileSync(join(dir, 'solution', 'solve.sh'), `#!/bin/bash\necho ${word} > answer.txt\n`);
  writeFileSync(
    join(dir, 'task.toml'),
    `[metadata]\ncategory = "testing"\ndifficulty = "easy"\n[verifier]\ntimeout_sec = 60\n[[verifier.assertions]]\nname = "answer"\nrun = "grep -qx ${word} answer.txt"\n[[verifier.assertions]]\nname = "nothing else"\nrun = "test $(ls | wc -l) -eq 1"\n`,
  );
}

interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function until<T>(
  what: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 60_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(skip !== null)('env serve over engine hosts (two podman services)', () => {
  let tmp: { path: string; remove(): void };
  const services: PodmanService[] = [];
  let home: string;
  let suite: string;
  let tasks: Task[];
  let containers: ContainerSettings;
  let service: EnvService;
  let server: EnvServer;
  const logs: string[] = [];
  /** The host test 3 killed. */
  let deadHost = '';

  const labObjects = (s: PodmanService) =>
    s
      .cli(['ps', '-a', '--filter', `label=t1lab.install=${installId(home)}`, '--format', '{{.ID}}'])
      .stdout.split('\n')
      .filter(Boolean);
  const noneLeft = (which: PodmanService[] = services) =>
    until(() => which.every((s) => labObjects(s).length === 0), 60_000);
  const records = () =>
    readFileSync(join(service.runDir, 'episodes.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as EpisodeRecord);
  const call = async (method: string, path: string, token: string | null, body?: unknown): Promise<Reply> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  };
  const session = async (): Promise<string> => {
    const created = await call('POST', '/sessions', ADMIN);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.token as string;
  };
  const task = (word: string) => tasks.find((t) => t.id === `echo-${word}`) as Task;

  beforeAll(async () => {
    tmp = makeTempDir('t1lab-env-hosts-');
    home = join(tmp.path, 'home');
    mkdirSync(home, { recursive: true });
    services.push(await startPodmanService(join(tmp.path, 'a')), await startPodmanService(join(tmp.path, 'b')));
    execFileSync('podman', ['import', '--change', 'CMD ["bash"]', tinyRootfs(), TINY], {
      stdio: 'ignore',
      timeout: 120_000,
    });
    suite = join(tmp.path, 'suite');
    for (const word of ['alpha', 'beta']) writeTask(join(suite, `echo-${word}`), word);
    tasks = (await loadTaskSource(suite)).tasks;
    containers = { backend: 'podman', engine: 'podman', baseImages: { '*': TINY }, pull: false, network: false };
    const hosts: HostConfig[] = [
      { name: 'a', url: services[0]!.url, slots: 1 },
      { name: 'b', url: services[1]!.url, slots: 1 },
    ];
    const runDir = join(tmp.path, 'env-run');
    const pool = await openHostPool(hosts, home, 'env-run', (l) => logs.push(l));
    service = new EnvService({
      tasks,
      suite,
      runDir,
      adminToken: ADMIN,
      maxSessions: 8,
      idleSec: 120,
      ttlSec: 900,
      containers: { ...containers, hosts },
      hosts: new EnvHosts(pool!, hosts),
      tmpDir: tmp.path,
      log: (l) => logs.push(l),
    });
    server = await startEnvServer({ service, host: '127.0.0.1', port: 0, log: (l) => logs.push(l) });
  }, 240_000);
  afterAll(async () => {
    await server?.close();
    for (const s of services) await s.stop();
    spawnSync('podman', ['rmi', '-f', TINY], { stdio: 'ignore' });
    tmp?.remove();
  }, 120_000);

  it("two sessions at once, one per host: the oracle resolves both, rewards equal the lab's own evaluation, nothing is left on the hosts", async () => {
    expect(service.sessionCap()).toBe(2);
    expect(service.hostViews()).toEqual([
      { name: 'a', url: services[0]!.url, slots: 1, alive: true },
      { name: 'b', url: services[1]!.url, slots: 1, alive: true },
    ]);
    const tokens = [await session(), await session()];
    // Bounded by the hosts' slots (2), not --max-sessions (8): the third is told when to retry.
    const full = await call('POST', '/sessions', ADMIN);
    expect(full.status).toBe(429);
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((full.body.error as { message: string }).message).toMatch(/bounded by the 2 slots of the live engine hosts/);

    const episode = async (token: string, t: Task) => {
      const reset = await call('POST', '/reset', token, { task_id: t.id });
      expect(reset.status, JSON.stringify(reset.body)).toBe(200);
      const host = (reset.body.observation as { host: string }).host;
      // The episode's container runs on the host its observation names.
      expect(labObjects(services[host === 'a' ? 0 : 1]!).length).toBeGreaterThan(0);
      for (const command of solutionCommands(t)) {
        const step = await call('POST', '/step', token, { action: { command, timeout_s: 60 } });
        expect(step.status, JSON.stringify(step.body)).toBe(200);
      }
      const done = await call('POST', '/step', token, { action: { submit: true } });
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      return { host, done: done.body };
    };
    const [one, two] = await Promise.all([episode(tokens[0]!, task('alpha')), episode(tokens[1]!, task('beta'))]);
    // One slot each: the two episodes ran at once on the two hosts.
    expect([one!.host, two!.host].sort()).toEqual(['a', 'b']);
    for (const r of [one!, two!])
      expect(r.done).toMatchObject({
        done: true,
        reward: 2,
        observation: { resolved: true, rewards: { dense: 2, fraction: 1, binary: 1 }, host: r.host },
      });
    await noneLeft();
    for (const token of tokens) expect((await call('DELETE', '/session', token)).status).toBe(200);

    // The lab's own evaluation of the same tasks (this machine's podman), with the same oracle.
    const lab = await startEvaluation(
      { suite, policy: 'oracle', concurrency: 1, out: join(tmp.path, 'lab-run') },
      { dataDir: home, containers },
      { log: () => {} },
    );
    await lab.done;
    const ours = readFileSync(join(tmp.path, 'lab-run', 'episodes.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as EpisodeRecord);
    expect(ours.map((r) => r.taskId).sort()).toEqual(['echo-alpha', 'echo-beta']);
    const served = await until(() => (records().length >= 2 ? records() : null));
    for (const r of ours) expect(served.find((s) => s.taskId === r.taskId)?.reward, r.taskId).toEqual(r.reward);
    expect(Object.fromEntries(served.map((r) => [r.taskId, r.host]))).toEqual({
      'echo-alpha': one!.host,
      'echo-beta': two!.host,
    });
    await until(() => service.activeSessions() === 0);
  }, 400_000);

  it('a session deleted mid-episode, and a WebSocket client that disappears mid-episode: their containers are removed', async () => {
    const token = await session();
    const reset = await call('POST', '/reset', token, { task_id: task('alpha').id });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect((await call('POST', '/step', token, { action: { command: 'echo mid-episode > note.txt' } })).status).toBe(
      200,
    );
    expect(services.some((s) => labObjects(s).length > 0)).toBe(true);
    expect((await call('DELETE', '/session', token)).status).toBe(200);
    await noneLeft();

    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const replies: Array<{ type: string; data: Record<string, unknown> }> = [];
    ws.on('message', (d) => replies.push(JSON.parse(d.toString()) as (typeof replies)[number]));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ type: 'reset', data: { task_id: task('beta').id } }));
    const first = await until(() => replies[0], 120_000);
    expect(first.type, JSON.stringify(first)).toBe('observation');
    ws.send(JSON.stringify({ type: 'step', data: { command: 'sleep 300', timeout_s: 600 } }));
    await until(() => services.some((s) => labObjects(s).length > 0));
    await new Promise((r) => setTimeout(r, 1000));
    // Gone without a word (no close frame), mid-command: the container goes now, not when the command would end.
    const gone = Date.now();
    ws.terminate();
    await noneLeft();
    expect(Date.now() - gone).toBeLessThan(60_000);
    await until(() => service.activeSessions() === 0);
    const cancelled = await until(
      () =>
        records().filter((r) => r.stopReason === 'cancelled').length >= 2 &&
        records().filter((r) => r.stopReason === 'cancelled'),
    );
    for (const r of cancelled) expect(['a', 'b']).toContain(r.host);
  }, 300_000);

  it('a session on a host that idles past its time-to-live, and one idle past its idle timeout: each ended, its container removed there, its record kept', async () => {
    const hosts: HostConfig[] = [
      { name: 'a', url: services[0]!.url, slots: 1 },
      { name: 'b', url: services[1]!.url, slots: 1 },
    ];
    // Services of their own (their own pools on the same hosts), with short limits.
    const short = async (name: string, ttlSec: number, idleSec: number) => {
      const pool = await openHostPool(hosts, home, name, (l) => logs.push(l));
      const svc = new EnvService({
        tasks,
        suite,
        runDir: join(tmp.path, name),
        adminToken: ADMIN,
        maxSessions: 2,
        idleSec,
        ttlSec,
        containers: { ...containers, hosts },
        hosts: new EnvHosts(pool!, hosts),
        tmpDir: tmp.path,
        log: (l) => logs.push(l),
      });
      return { svc, server: await startEnvServer({ service: svc, host: '127.0.0.1', port: 0 }) };
    };
    const ttl = await short('env-ttl', 6, 600);
    const idle = await short('env-idle', 600, 3);
    const episode = async (on: { svc: EnvService; server: EnvServer }) => {
      const post = async (path: string, token: string | null, body?: unknown) => {
        const res = await fetch(`${on.server.url}${path}`, {
          method: 'POST',
          headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
          body: JSON.stringify(body ?? {}),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const created = await post('/sessions', ADMIN);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const token = created.body.token as string;
      const reset = await post('/reset', token, { task_id: task('alpha').id });
      expect(reset.status, JSON.stringify(reset.body)).toBe(200);
      expect((await post('/step', token, { action: { command: 'echo then idle > note.txt' } })).status).toBe(200);
      const host = (reset.body.observation as { host: string }).host;
      const there = services[host === 'a' ? 0 : 1]!;
      // The container is on the host while the session idles; then nothing asks, and the service ends it.
      const ours = () =>
        labObjects(there).filter(
          (id) =>
            there.cli(['inspect', '--format', '{{index .Config.Labels "t1lab.run"}}', id]).stdout.trim() ===
            basename(on.svc.runDir),
        );
      expect(ours().length).toBeGreaterThan(0);
      const idleFrom = Date.now();
      await until(() => on.svc.activeSessions() === 0, 60_000);
      await until(() => ours().length === 0, 60_000);
      const [record] = await until(() => {
        const path = join(on.svc.runDir, 'episodes.jsonl');
        return existsSync(path) && readFileSync(path, 'utf8').trim()
          ? readFileSync(path, 'utf8')
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l) as EpisodeRecord)
          : null;
      }, 60_000);
      expect(record).toMatchObject({ taskId: 'echo-alpha', host, stopReason: 'cancelled', resolved: false });
      expect((await post('/step', token, { action: { command: 'ls' } })).status).toBe(401);
      return { host, idleMs: Date.now() - idleFrom };
    };
    try {
      const [byTtl, byIdle] = await Promise.all([episode(ttl), episode(idle)]);
      expect(logs.some((l) => /time-to-live reached/.test(l))).toBe(true);
      expect(logs.some((l) => /idle for 3 s/.test(l))).toBe(true);
      // Ended by the limit, not before it (the TTL counts from the session's creation), nor long after it.
      expect(byIdle.idleMs).toBeGreaterThanOrEqual(2_500);
      expect(byTtl.idleMs).toBeLessThan(30_000);
      expect(byIdle.idleMs).toBeLessThan(30_000);
    } finally {
      await ttl.server.close();
      await idle.server.close();
    }
    await noneLeft();
  }, 180_000);

  it('a host that dies under an episode: a 502 naming the host, an infrastructure record, the next episode on the other host', async () => {
    const token = await session();
    const reset = await call('POST', '/reset', token, { task_id: task('alpha').id });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    const host = (reset.body.observation as { host: string }).host;
    const dead = services[host === 'a' ? 0 : 1]!;
    const other = host === 'a' ? 'b' : 'a';
    expect((await call('POST', '/step', token, { action: { command: 'echo before > note.txt' } })).status).toBe(200);
    dead.child.kill('SIGKILL');
    const step = await call('POST', '/step', token, { action: { command: 'echo after', timeout_s: 60 } });
    expect(step.status, JSON.stringify(step.body)).toBe(502);
    const message = (step.body.error as { message: string }).message;
    expect(message).toContain(`engine host '${host}'`);
    expect(message).toMatch(/infrastructure error/);
    expect((await call('GET', '/health', null)).status).toBe(200);
    const record = await until(() => records().find((r) => r.error?.kind === 'infrastructure'));
    expect(record).toMatchObject({ taskId: 'echo-alpha', host, resolved: false });
    expect(record.error?.message).toContain(`host '${host}'`);
    expect(service.hostViews().find((h) => h.name === host)?.alive).toBe(false);
    // One live host with one slot: this session holds the cap.
    expect(service.sessionCap()).toBe(1);
    expect((await call('POST', '/sessions', ADMIN)).status).toBe(429);
    // The next episode of the same session runs on the live host.
    const again = await call('POST', '/reset', token, { task_id: task('beta').id });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect((again.body.observation as { host: string }).host).toBe(other);
    expect((await call('DELETE', '/session', token)).status).toBe(200);
    await noneLeft([services[host === 'a' ? 1 : 0]!]);
    deadHost = host;
  }, 300_000);

  it('t1lab env serve --hosts all --json: the startup line names the hosts, the live one and the dead one, and the session cap', async () => {
    for (const [i, name] of ['a', 'b'].entries()) addHost(home, { name, url: services[i]!.url, slots: 1 });
    const cli = join(REPO_ROOT, 'electron/cli/t1lab.ts');
    const args = [
      'env',
      'serve',
      '--suite',
      suite,
      '--backend',
      'podman',
      '--base-image',
      `*=${TINY}`,
      '--hosts',
      'all',
      '--max-sessions',
      '4',
      '--out',
      join(tmp.path, 'cli-run'),
      '--json',
    ];
    const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, T1LAB_HOME: home, T1LAB_ENV_ADMIN_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    try {
      await until(() => stdout.includes('\n') || child.exitCode !== null, 120_000);
      expect(child.exitCode, stderr).toBeNull();
      const line = JSON.parse(stdout.split('\n')[0] as string) as Record<string, unknown>;
      const live = deadHost === 'a' ? 'b' : 'a';
      expect(line).toMatchObject({
        runDir: join(tmp.path, 'cli-run'),
        adminTokenFile: join(home, 'env', 'admin-token'),
        tasks: 2,
        maxSessions: 4,
        sessionCap: 1,
        backend: 'podman',
        containerTasks: 2,
        unservable: [],
      });
      expect(line.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(line.hosts).toEqual([
        { name: 'a', url: services[0]!.url, slots: 1, alive: live === 'a' },
        { name: 'b', url: services[1]!.url, slots: 1, alive: live === 'b' },
      ]);
      expect(stderr).toMatch(new RegExp(`host '${deadHost}' is not used: `));
      expect(stderr).toContain(
        `container episodes on a (${live === 'a' ? '1 slot' : 'down'}), b (${live === 'b' ? '1 slot' : 'down'}); at most 1 sessions at once`,
      );
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 180_000);
});
