/**
 * The listener registry the IPC client and the renderer's web connection share: the host hears of an event
 * once, when its first listener comes, and once more when its last one leaves.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from '../../../electron/ipc/common/client';
import { EventListeners } from '../../../electron/ipc/common/event-listeners';
import { Emitter, type ClientTransport } from '../../../electron/ipc/common/transport';
import type { Contract } from '../../../electron/ipc/common/define';

function registryWithLog(): { listeners: EventListeners; log: string[] } {
  const log: string[] = [];
  const listeners = new EventListeners({
    onFirst: (e) => log.push(`first ${e}`),
    onLast: (e) => log.push(`last ${e}`),
  });
  return { listeners, log };
}

describe('EventListeners', () => {
  it('calls onFirst for the first listener of an event and onLast after its last, and delivers to each listener', () => {
    const { listeners, log } = registryWithLog();
    const got: string[] = [];
    const offA = listeners.add('said', (p) => got.push(`a:${String(p)}`));
    const offB = listeners.add('said', (p) => got.push(`b:${String(p)}`));
    listeners.add('other', () => got.push('other'));
    listeners.emit('said', 'hi');
    offA();
    listeners.emit('said', 'again');
    offB();
    listeners.emit('said', 'unheard');
    expect(got).toEqual(['a:hi', 'b:hi', 'b:again']);
    expect(log).toEqual(['first said', 'first other', 'last said']);
    expect(listeners.events()).toEqual(['other']);
  });

  it('removes one registration per call: a second call, or a stale one after the event came back, removes nothing', () => {
    const { listeners, log } = registryWithLog();
    const got: string[] = [];
    const listener = (p: unknown) => got.push(String(p));
    const stale = listeners.add('said', listener);
    stale();
    stale();
    listeners.add('said', listener);
    stale();
    listeners.emit('said', 'still heard');
    expect(got).toEqual(['still heard']);
    expect(log).toEqual(['first said', 'last said', 'first said']);
  });
});

/** A transport that records what the client sends and never answers. */
function recordingTransport(): { transport: ClientTransport; sent: () => string[] } {
  const frames: string[] = [];
  const transport: ClientTransport = {
    send: (f) => void frames.push(f),
    onFrame: (l) => new Emitter<[string]>().on(l),
    onClose: (l) => new Emitter<[string]>().on(l),
    close: () => {},
  };
  const sent = () =>
    frames.map((f) => JSON.parse(f) as { t: string; event?: string }).map((f) => `${f.t} ${f.event ?? ''}`.trim());
  return { transport, sent };
}

describe('the IPC client with it', () => {
  it('subscribes on the host once per event and unsubscribes after the last listener', () => {
    const { transport, sent } = recordingTransport();
    const client = createClient<Contract>(transport);
    const offA = client.on('said' as never, () => {});
    const offB = client.on('said' as never, () => {});
    offA();
    offA();
    expect(sent()).toEqual(['sub said']);
    offB();
    expect(sent()).toEqual(['sub said', 'unsub said']);
  });

  it('keeps a listener added again after its first registration was removed, whatever the stale remover does', () => {
    // React StrictMode's mount, unmount, mount runs an effect's cleanup twice with the same listener function.
    const { transport, sent } = recordingTransport();
    const client = createClient<Contract>(transport);
    const listener = () => {};
    const first = client.on('said' as never, listener);
    first();
    client.on('said' as never, listener);
    first();
    expect(sent()).toEqual(['sub said', 'unsub said', 'sub said']);
  });
});
