/**
 * An effect that subscribes to a store after an async restore (the Training page keeping the address in
 * sync), run as React StrictMode runs it: set up, cleaned up at once, set up again, cleaned up on leaving.
 * No subscription may outlive its cleanup, whether the cleanup comes before or after the restore.
 */
import { describe, expect, it } from 'vitest';
import { createStore } from 'zustand/vanilla';
import { startWhenReady } from '../../../renderer/src/lab/start-when-ready';

/** A store that counts the subscriptions open on it. */
function countedStore() {
  const store = createStore<{ n: number }>(() => ({ n: 0 }));
  let open = 0;
  const subscribe = (listener: (s: { n: number }) => void) => {
    open++;
    const off = store.subscribe(listener);
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      open--;
      off();
    };
  };
  return { store, subscribe, open: () => open };
}

/** A promise and the function that resolves it: the test decides when the restore has finished. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise<void>((r) => setImmediate(r));

describe('startWhenReady (an effect that subscribes after an async restore)', () => {
  it('under StrictMode (mount, cleanup, mount) leaves exactly one subscription, and none once unmounted', async () => {
    const { store, subscribe, open } = countedStore();
    const writes: number[] = [];
    // The effect: restore, then write the state once and on every change.
    const effect = () => {
      const restore = deferred();
      const cleanup = startWhenReady(restore.promise, () => {
        writes.push(store.getState().n);
        return subscribe((s) => writes.push(s.n));
      });
      return { cleanup, restore };
    };
    const first = effect();
    first.cleanup();
    const second = effect();
    first.restore.resolve();
    second.restore.resolve();
    await settle();
    expect(open()).toBe(1);
    store.setState({ n: 1 });
    expect(writes).toEqual([0, 1]);
    second.cleanup();
    expect(open()).toBe(0);
    store.setState({ n: 2 });
    expect(writes).toEqual([0, 1]);
  });

  it('stops what it started when the cleanup comes after the restore', async () => {
    const { subscribe, open } = countedStore();
    const cleanup = startWhenReady(Promise.resolve(), () => subscribe(() => {}));
    await settle();
    expect(open()).toBe(1);
    cleanup();
    expect(open()).toBe(0);
  });

  it('starts nothing when the restore fails', async () => {
    const { subscribe, open } = countedStore();
    startWhenReady(Promise.reject(new Error('run gone')), () => subscribe(() => {}));
    await settle();
    expect(open()).toBe(0);
  });
});
