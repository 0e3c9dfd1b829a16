/** An episode whose wait nothing aborts cannot hold a PPO step for ever: the backstop gives it up. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withBackstop } from '../../../electron/lab/ppo/rollouts';

afterEach(() => vi.useRealTimers());

describe('episode backstop', () => {
  it('gives up an episode that never ends, naming it', async () => {
    vi.useFakeTimers();
    const never = new Promise<string>(() => {});
    const raced = withBackstop(240, 'extract-archive-s7-a0', never);
    const outcome = raced.then(
      (v) => ({ ok: true as const, v }),
      (e: Error) => ({ ok: false as const, message: e.message }),
    );
    await vi.advanceTimersByTimeAsync(239_000);
    let settled = false;
    void outcome.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await outcome).toEqual({
      ok: false,
      message: 'episode extract-archive-s7-a0 did not end 240 s after it started; given up (it is not recorded)',
    });
  });

  it('passes an episode that ends through, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const value = await withBackstop(240, 'k', Promise.resolve('done'));
    expect(value).toBe('done');
    expect(vi.getTimerCount()).toBe(0);
  });
});
