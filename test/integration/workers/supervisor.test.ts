import { afterEach, describe, expect, test } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { WorkerStatus } from '../../../electron/domain/system';
import { moduleEntry } from '../../../electron/processes/entries';
import { forkLauncher, type WorkerLauncher } from '../../../electron/processes/launcher';
import { WorkerSupervisor, type RestartPolicy } from '../../../electron/processes/supervisor';
import { testWorkerContract } from '../../fixtures/workers/test-contract';

const entry = moduleEntry(fileURLToPath(new URL('../../fixtures/workers/test-worker.ts', import.meta.url)));
const supervisors: WorkerSupervisor<typeof testWorkerContract>[] = [];

/** Frames between the supervisor and its workers, as the process channel carries them. */
interface Wire {
  /** Parsed frames posted to the worker (requests, sub, unsub). */
  posted: { t: string; event?: string }[];
  /** Events the worker sent, by name. */
  events: string[];
}

/** The fork launcher, with every frame in both directions recorded on `wire`. */
function recordingLauncher(wire: Wire): WorkerLauncher {
  return {
    kind: 'fork',
    launch(spec) {
      const h = forkLauncher.launch(spec);
      h.onMessage((frame) => {
        const f = JSON.parse(String(frame)) as { t: string; event?: string };
        if (f.t === 'evt' && f.event) wire.events.push(f.event);
      });
      return {
        get pid() {
          return h.pid;
        },
        post: (frame) => {
          wire.posted.push(JSON.parse(frame) as { t: string; event?: string });
          h.post(frame);
        },
        onMessage: (l) => h.onMessage(l),
        onExit: (l) => h.onExit(l),
        onExitInfo: (l) => h.onExitInfo(l),
        kill: (signal) => h.kill(signal),
      };
    },
  };
}

function supervise(
  restart: Partial<RestartPolicy> = {},
  health: { healthIntervalMs?: number; healthTimeoutMs?: number } = {},
  launcher: WorkerLauncher = forkLauncher,
) {
  const s = new WorkerSupervisor({
    spec: { name: 'test', ...entry },
    launcher,
    contract: testWorkerContract,
    restart: { baseBackoffMs: 20, ...restart },
    healthIntervalMs: health.healthIntervalMs ?? 0,
    healthTimeoutMs: health.healthTimeoutMs,
  });
  const statuses: WorkerStatus[] = [];
  s.onStatus((st) => statuses.push(st));
  supervisors.push(s);
  return { s, statuses };
}

function waitFor(predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      if (predicate()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error('condition not met in time'));
      setTimeout(tick, 20);
    };
    tick();
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.stop()));
});

describe('worker supervisor over a real forked process', () => {
  test('starts, answers calls and relays events', async () => {
    const { s } = supervise();
    await s.start();
    const echo = await s.call('test.echo', { text: 'hello' });
    expect(echo.text).toBe('hello');
    expect(echo.pid).not.toBe(process.pid);
    const ticks: number[] = [];
    s.on('test.tick', ({ n }) => ticks.push(n));
    await s.call('test.echo', { text: 'sync' }); // the subscription frame is ahead of this call
    await s.call('test.emit', { count: 3 });
    await waitFor(() => ticks.length === 3);
    expect(ticks).toEqual([0, 1, 2]);
  });

  test('a crash is reported with its exit reason and the worker is restarted', async () => {
    const { s, statuses } = supervise();
    await s.start();
    const firstPid = (await s.call('test.echo', { text: 'a' })).pid;
    await s.call('test.crash', { code: 3 });
    await waitFor(() => statuses.some((st) => st.state === 'crashed'));
    const crashed = statuses.find((st) => st.state === 'crashed');
    expect(crashed?.lastExit).toBe('exited with code 3');
    await waitFor(() => s.status().state === 'ready');
    const second = await s.call('test.echo', { text: 'b' });
    expect(second.pid).not.toBe(firstPid);
    expect(s.status().restarts).toBe(1);
    expect(statuses.map((st) => st.state)).toEqual(['starting', 'ready', 'crashed', 'restarting', 'ready']);
  });

  test('event subscriptions survive a restart', async () => {
    const { s } = supervise();
    await s.start();
    const ticks: number[] = [];
    s.on('test.tick', ({ n }) => ticks.push(n));
    await s.call('test.crash', { code: 1 });
    await waitFor(() => s.status().restarts === 1 && s.status().state === 'ready');
    await s.call('test.echo', { text: 'sync' });
    await s.call('test.emit', { count: 2 });
    await waitFor(() => ticks.length === 2);
    expect(ticks).toEqual([0, 1]);
  });

  test('the worker is unsubscribed when the last listener leaves, and subscribed again for a new one', async () => {
    const wire: Wire = { posted: [], events: [] };
    const { s } = supervise({}, {}, recordingLauncher(wire));
    await s.start();
    const subFrames = () =>
      wire.posted.filter((f) => (f.t === 'sub' || f.t === 'unsub') && f.event === 'test.tick').map((f) => f.t);
    const seen: string[] = [];
    const offA = s.on('test.tick', () => seen.push('a'));
    const offB = s.on('test.tick', () => seen.push('b'));
    expect(subFrames()).toEqual(['sub']);

    offA();
    expect(subFrames()).toEqual(['sub']); // b still listens
    offB();
    expect(subFrames()).toEqual(['sub', 'unsub']);
    // The worker has processed the unsub before this call (one ordered channel): it sends no event, and
    // an emit's events arrive before its answer, so none can still be on the way.
    await s.call('test.emit', { count: 2 });
    expect(wire.events).toEqual([]);
    expect(seen).toEqual([]);

    const offC = s.on('test.tick', () => seen.push('c'));
    expect(subFrames()).toEqual(['sub', 'unsub', 'sub']);
    await s.call('test.emit', { count: 1 });
    expect(wire.events).toEqual(['test.tick']);
    expect(seen).toEqual(['c']);
    offC();
    offC(); // a second call removes nothing more
    expect(subFrames()).toEqual(['sub', 'unsub', 'sub', 'unsub']);
  });

  test('a call in flight when the worker dies fails with WORKER_CRASHED, not a hang', async () => {
    const { s } = supervise({ mode: 'never' });
    await s.start();
    const pid = (await s.call('test.echo', { text: 'x' })).pid;
    const sleeping = s.call('test.sleep', { ms: 30_000 });
    await new Promise((r) => setTimeout(r, 100));
    process.kill(pid, 'SIGKILL');
    await expect(sleeping).rejects.toMatchObject({
      code: 'WORKER_CRASHED',
      message: expect.stringContaining('killed by SIGKILL'),
    });
    await waitFor(() => s.status().state === 'failed');
    expect(s.status().lastExit).toBe('killed by SIGKILL');
    await expect(s.call('test.echo', { text: 'y' })).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  test('an unresponsive worker is killed and restarted', async () => {
    const { s, statuses } = supervise({}, { healthIntervalMs: 100, healthTimeoutMs: 300 });
    await s.start();
    const pid = (await s.call('test.echo', { text: 'a' })).pid;
    await s.call('test.hang', {});
    await waitFor(() => statuses.some((st) => st.state === 'crashed'));
    expect(statuses.find((st) => st.state === 'crashed')?.lastExit).toMatch(/^unresponsive/);
    expect(alive(pid)).toBe(false);
    await waitFor(() => s.status().state === 'ready');
    await expect(s.call('test.echo', { text: 'back' })).resolves.toMatchObject({ text: 'back' });
  });

  test('gives up after too many restarts in the window', async () => {
    const { s } = supervise({ maxRestarts: 2, windowMs: 60_000 });
    await s.start();
    for (let i = 0; i < 3; i++) {
      await waitFor(() => s.status().state === 'ready');
      await s.call('test.crash', { code: 9 });
      await waitFor(() => s.status().state !== 'ready');
    }
    await waitFor(() => s.status().state === 'failed');
    expect(s.status().lastExit).toContain('gave up after 2 restarts');
  });

  test('stop ends the process and leaves nothing running', async () => {
    const { s } = supervise();
    await s.start();
    const pid = (await s.call('test.echo', { text: 'a' })).pid;
    await s.stop();
    expect(s.status().state).toBe('stopped');
    await waitFor(() => !alive(pid), 5_000);
  });
});
