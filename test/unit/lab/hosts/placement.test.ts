import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostPool, hostFailed, runPlaced, type HostLease } from '../../../../electron/lab/hosts/placement';
import type { PhaseRuntime } from '../../../../electron/lab/containers/runtime';

type Rec = { error: { kind: string; message: string } | null; host?: string };

/** A pool of named hosts with one slot each; `down` marks what the placement gave up on. */
function fakePool(names: string[], unreachable = new Set<string>()) {
  const down = new Set<string>();
  const listeners = new Map<string, Set<(why: string) => void>>();
  const pool = {
    names,
    down,
    onDown(n: string, l: (why: string) => void) {
      if (down.has(n)) {
        l(`host '${n}' is down`);
        return () => {};
      }
      const set = listeners.get(n) ?? new Set();
      listeners.set(n, set.add(l));
      return () => void set.delete(l);
    },
    async acquire(avoid: ReadonlySet<string>) {
      const h = names.find((n) => !down.has(n) && !avoid.has(n));
      return h ? ({ host: h, backend: { host: h }, release() {} } as unknown as HostLease) : null;
    },
    async ensureImage() {},
    markDown: (n: string, why = `host '${n}' is down`) => {
      down.add(n);
      for (const l of listeners.get(n) ?? []) l(why);
      listeners.delete(n);
    },
    reachable: async (n: string) => !down.has(n) && !unreachable.has(n),
  };
  return pool as unknown as HostPool & { down: Set<string> };
}

const runtime = {
  backend: 'podman',
  sandbox: {},
  network: false,
  reason: 'test',
  container: { engine: 'podman', image: { ref: 'img' } },
} as unknown as PhaseRuntime;

describe('placing an episode on a host', () => {
  it('records the host, retries on another when a host fails under it, and gives up as infrastructure', async () => {
    const pool = fakePool(['a', 'b']);
    const seen: string[] = [];
    const run = async (r: PhaseRuntime | undefined): Promise<Rec> => {
      const host = r?.container?.host?.name as string;
      seen.push(host);
      return host === 'a'
        ? { error: { kind: 'sandbox', message: `host 'a' failed mid-run: socket hang up` } }
        : { error: null };
    };
    const rec = await runPlaced(pool, runtime, run, (why) => ({ error: { kind: 'sandbox', message: why } }));
    expect(seen).toEqual(['a', 'b']);
    expect(rec.host).toBe('b');
    expect(pool.down.has('a')).toBe(true);
    const none = await runPlaced(fakePool(['a']), runtime, run, (why) => ({
      error: { kind: 'sandbox', message: why },
    }));
    expect(none.error?.message).toMatch(/^infrastructure: no engine host could run it \(host 'a' failed mid-run/);
  });

  it("takes any failure on a host that stopped answering as the host's", async () => {
    const pool = fakePool(['a', 'b'], new Set(['a']));
    const rec = await runPlaced(
      pool,
      runtime,
      async (r): Promise<Rec> =>
        r?.container?.host?.name === 'a'
          ? { error: { kind: 'sandbox', message: 'session ended (exit code 137) before its first prompt' } }
          : { error: null },
      (): Rec => ({ error: null }),
    );
    expect(rec).toEqual({ error: null, host: 'b' });
  });

  it('gives up an episode at once when its host is marked down under it, and runs it on another', async () => {
    const pool = fakePool(['a', 'b']);
    const seen: string[] = [];
    const run = (r: PhaseRuntime | undefined): Promise<Rec> => {
      const host = r?.container?.host?.name as string;
      seen.push(host);
      // On a, the episode hangs (a call to a dead engine nothing answers) until the host is marked down.
      if (host === 'a') {
        setTimeout(() => pool.markDown('a', "host 'a' stopped answering: no answer within 10 s"), 10);
        return new Promise<Rec>(() => {});
      }
      return Promise.resolve({ error: null });
    };
    const logged: string[] = [];
    const rec = await runPlaced(
      pool,
      runtime,
      run,
      (why) => ({ error: { kind: 'infrastructure', message: why } }),
      (m) => logged.push(m),
    );
    expect(seen).toEqual(['a', 'b']);
    expect(rec).toEqual({ error: null, host: 'b' });
    expect(logged[0]).toMatch(/^host 'a' went down under an episode/);
    // With no host left: an infrastructure error naming why.
    const alone = fakePool(['a']);
    const hung = (): Promise<Rec> => (
      setTimeout(() => alone.markDown('a', "host 'a' stopped answering"), 10),
      new Promise<Rec>(() => {})
    );
    const lost = await runPlaced(alone, runtime, hung, (why) => ({ error: { kind: 'infrastructure', message: why } }));
    expect(lost.error).toEqual({
      kind: 'infrastructure',
      message: "infrastructure: no engine host could run it (host 'a' stopped answering)",
    });
  });

  it('keeps task failures and local tasks as they are', async () => {
    const pool = fakePool(['a']);
    const failed = await runPlaced(
      pool,
      runtime,
      async (): Promise<Rec> => ({ error: { kind: 'verifier', message: 'tests failed' } }),
      (): Rec => ({ error: null }),
    );
    expect(failed).toEqual({ error: { kind: 'verifier', message: 'tests failed' }, host: 'a' });
    const local = await runPlaced(
      pool,
      { ...runtime, container: null },
      async (): Promise<Rec> => ({ error: null }),
      (): Rec => ({ error: null }),
    );
    expect(local.host).toBeUndefined();
    expect(hostFailed({ kind: 'sandbox', message: "host 'a' is unavailable" }, 'a')).toBe(true);
    expect(hostFailed({ kind: 'sandbox', message: 'session ended before its first prompt' }, 'a')).toBe(false);
  });
});

/** A fake engine on a unix socket: answers version and info as podman does, and empty lists to a sweep. */
async function fakeEngine(dir: string, name: string): Promise<{ url: string; close(): Promise<void> }> {
  const socket = join(dir, `${name}.sock`);
  const server = createServer((req, res) => {
    const path = (req.url ?? '').replace(/^\/v[\d.]+/, '').split('?')[0];
    const body =
      path === '/version'
        ? { Version: '4.3.1', ApiVersion: '1.41', Components: [{ Name: 'Podman Engine' }] }
        : path === '/info'
          ? { NCPU: 2, MemTotal: 2 ** 30, SecurityOptions: [] }
          : path === '/volumes'
            ? { Volumes: [] }
            : [];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { url: `unix://${socket}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('the host pool', () => {
  it('hands out slots without waiting (tryAcquire) from the same count that acquire waits on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 't1lab-pool-'));
    const engines = [await fakeEngine(dir, 'a'), await fakeEngine(dir, 'b')];
    const pool = new HostPool(
      [
        { name: 'a', url: engines[0]!.url, slots: 2 },
        { name: 'b', url: engines[1]!.url, slots: 1 },
      ],
      { installId: 'test', runId: 'r' },
    );
    try {
      await pool.open(() => {});
      expect(pool.capacity()).toBe(3);
      // The host with the most free slots first: a (2), then a or b (1 each), then none.
      const first = pool.tryAcquire();
      expect(first?.host).toBe('a');
      const second = pool.tryAcquire() as HostLease;
      const third = pool.tryAcquire() as HostLease;
      expect([second.host, third.host].sort()).toEqual(['a', 'b']);
      expect(pool.tryAcquire()).toBeNull();
      // acquire waits on the same count: it answers once tryAcquire's lease is given back.
      let waited: HostLease | null = null;
      const waiting = pool.acquire().then((l) => (waited = l));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(waited).toBeNull();
      third.release();
      third.release(); // twice gives back one slot
      await waiting;
      expect(waited!.host).toBe(third.host);
      expect(pool.tryAcquire()).toBeNull();
      // avoid leaves a host out; a host marked down leaves the capacity and answers no slot.
      first!.release();
      expect(pool.tryAcquire(new Set(['a']))).toBeNull();
      pool.markDown('b', 'gone');
      expect(pool.capacity()).toBe(2);
      expect(pool.tryAcquire()?.host).toBe('a');
      expect(pool.tryAcquire()).toBeNull();
      expect(await pool.acquire(new Set(['a']))).toBeNull();
    } finally {
      await pool.close();
      for (const e of engines) await e.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
