import { describe, expect, it } from 'vitest';
import { hostFailed, runPlaced, type HostLease, type HostPool } from '../../../../electron/lab/hosts/placement';
import type { PhaseRuntime } from '../../../../electron/lab/containers/runtime';

type Rec = { error: { kind: string; message: string } | null; host?: string };

/** A pool of named hosts with one slot each; `down` marks what the placement gave up on. */
function fakePool(names: string[], unreachable = new Set<string>()) {
  const down = new Set<string>();
  const pool = {
    names,
    down,
    async acquire(avoid: ReadonlySet<string>) {
      const h = names.find((n) => !down.has(n) && !avoid.has(n));
      return h ? ({ host: h, backend: { host: h }, release() {} } as unknown as HostLease) : null;
    },
    async ensureImage() {},
    markDown: (n: string) => void down.add(n),
    reachable: async (n: string) => !down.has(n) && !unreachable.has(n),
  };
  return pool as unknown as HostPool & { down: Set<string> };
}

const runtime = { backend: 'podman', sandbox: {}, network: false, reason: 'test', container: { engine: 'podman', image: { ref: 'img' } } } as unknown as PhaseRuntime;

describe('placing an episode on a host', () => {
  it('records the host, retries on another when a host fails under it, and gives up as infrastructure', async () => {
    const pool = fakePool(['a', 'b']);
    const seen: string[] = [];
    const run = async (r: PhaseRuntime | undefined): Promise<Rec> => {
      const host = r?.container?.host?.name as string;
      seen.push(host);
      return host === 'a' ? { error: { kind: 'sandbox', message: `host 'a' failed mid-run: socket hang up` } } : { error: null };
    };
    const rec = await runPlaced(pool, runtime, run, (why) => ({ error: { kind: 'sandbox', message: why } }));
    expect(seen).toEqual(['a', 'b']);
    expect(rec.host).toBe('b');
    expect(pool.down.has('a')).toBe(true);
    const none = await runPlaced(fakePool(['a']), runtime, run, (why) => ({ error: { kind: 'sandbox', message: why } }));
    expect(none.error?.message).toMatch(/^infrastructure: no engine host could run it \(host 'a' failed mid-run/);
  });

  it("takes any failure on a host that stopped answering as the host's", async () => {
    const pool = fakePool(['a', 'b'], new Set(['a']));
    const rec = await runPlaced(pool, runtime, async (r): Promise<Rec> => (r?.container?.host?.name === 'a' ? { error: { kind: 'sandbox', message: 'session ended (exit code 137) before its first prompt' } } : { error: null }), (): Rec => ({ error: null }));
    expect(rec).toEqual({ error: null, host: 'b' });
  });

  it('keeps task failures and local tasks as they are', async () => {
    const pool = fakePool(['a']);
    const failed = await runPlaced(pool, runtime, async (): Promise<Rec> => ({ error: { kind: 'verifier', message: 'tests failed' } }), (): Rec => ({ error: null }));
    expect(failed).toEqual({ error: { kind: 'verifier', message: 'tests failed' }, host: 'a' });
    const local = await runPlaced(pool, { ...runtime, container: null }, async (): Promise<Rec> => ({ error: null }), (): Rec => ({ error: null }));
    expect(local.host).toBeUndefined();
    expect(hostFailed({ kind: 'sandbox', message: "host 'a' is unavailable" }, 'a')).toBe(true);
    expect(hostFailed({ kind: 'sandbox', message: 'session ended before its first prompt' }, 'a')).toBe(false);
  });
});
