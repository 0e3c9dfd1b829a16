/** PendingCommits: a phase waits for the commit to its tag; a failed commit counts as settled; a newer commit keeps its place. */
import { describe, expect, it } from 'vitest';
import { PendingCommits } from '../../../native/sandbox/container/pending-commits';

const deferred = () => {
  let resolve!: () => void, reject!: (e: Error) => void;
  const promise = new Promise<void>((a, b) => ((resolve = a), (reject = b)));
  return { promise, resolve, reject };
};

describe('PendingCommits', () => {
  it('settled waits for the commit to that tag only, and for a newer one tracked meanwhile', async () => {
    const pending = new PendingCommits();
    const first = deferred(),
      second = deferred();
    pending.track('img:a', first.promise);
    let done = false;
    const waiting = pending.settled('img:a').then(() => (done = true));
    await pending.settled('img:b');
    pending.track('img:a', second.promise);
    first.resolve();
    await new Promise((r) => setTimeout(r, 10));
    expect(done).toBe(false);
    second.resolve();
    await waiting;
    expect(done).toBe(true);
  });

  it('a failed commit counts as settled and is returned to its caller as it failed', async () => {
    const pending = new PendingCommits();
    const work = deferred();
    const tracked = pending.track('img:a', work.promise);
    work.reject(new Error('commit failed'));
    await expect(tracked).rejects.toThrow('commit failed');
    await pending.settled('img:a');
  });

  it('without a tag nothing is tracked', async () => {
    const pending = new PendingCommits();
    const work = deferred();
    expect(pending.track(undefined, work.promise)).toBe(work.promise);
    await pending.settled('img:a');
  });
});
