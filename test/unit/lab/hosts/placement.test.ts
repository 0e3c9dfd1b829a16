import { describe, expect, it } from 'vitest';
import { hostFailed, runPlaced, type HostLease, type HostPool } from '../../../../electron/lab/hosts/placement';
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
