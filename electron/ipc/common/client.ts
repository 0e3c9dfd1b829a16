/**
 * The typed caller of a contract over any transport. The renderer's stores, the CLI's remote mode, the
 * workers' supervisors and the tests all use this one client.
 */
import type { Contract, EventName, EventPayload, MethodInput, MethodName, MethodOutput } from './define';
import { LabError } from './errors';
import { EventListeners } from './event-listeners';
import { encodeFrame, HostFrame } from './protocol';
import type { ClientTransport, Disposable } from './transport';

export interface CallOptions {
  signal?: AbortSignal;
  /** Reject with TIMEOUT after this many ms (and cancel the call on the host). Default: none. */
  timeoutMs?: number;
}

export interface Client<C extends Contract> {
  call<M extends MethodName<C>>(method: M, input: MethodInput<C, M>, options?: CallOptions): Promise<MethodOutput<C, M>>;
  /** Listen to an event; the subscription is sent to the host on the first listener and dropped after the last. */
  on<E extends EventName<C>>(event: E, listener: (payload: EventPayload<C, E>) => void): () => void;
  /** Frames the host could not attribute to a call (e.g. an answer to a malformed frame). */
  onProtocolError(listener: (message: string) => void): () => void;
  readonly closed: boolean;
  close(): void;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: LabError) => void;
  cleanup: () => void;
}

export function createClient<C extends Contract>(transport: ClientTransport): Client<C> {
  let nextId = 1;
  let closed = false;
  const pending = new Map<string, Pending>();
  const protocolListeners = new Set<(message: string) => void>();
  const listeners = new EventListeners({
    onFirst: (event) => {
      request({ t: 'sub', event }).catch((error: LabError) => {
        for (const l of protocolListeners) l(`subscribing to '${event}' failed: ${error.message}`);
      });
    },
    onLast: (event) => void request({ t: 'unsub', event }).catch(() => {}),
  });
  const newId = () => `c${nextId++}`;

  const safeSend = (frame: Parameters<typeof encodeFrame>[0]) => {
    if (closed) return;
    try {
      transport.send(encodeFrame(frame));
    } catch {
      // The close handler rejects what is pending.
    }
  };

  const subscriptions: Disposable[] = [
    transport.onFrame((text) => {
      let frame: HostFrame;
      try {
        frame = HostFrame.parse(JSON.parse(text));
      } catch {
        for (const l of protocolListeners) l(`unparseable frame from host: ${text.slice(0, 200)}`);
        return;
      }
      if (frame.t === 'evt') {
        listeners.emit(frame.event, frame.payload);
        return;
      }
      const entry = frame.id === null ? undefined : pending.get(frame.id);
      if (!entry) {
        if (!frame.ok) for (const l of protocolListeners) l(`${frame.error.code}: ${frame.error.message}`);
        return;
      }
      pending.delete(frame.id as string);
      entry.cleanup();
      if (frame.ok) entry.resolve(frame.result);
      else entry.reject(LabError.fromWire(frame.error));
    }),
    transport.onClose((reason) => shutdown(reason)),
  ];

  function shutdown(reason: string) {
    if (closed) return;
    closed = true;
    for (const [, entry] of pending) {
      entry.cleanup();
      entry.reject(new LabError('DISCONNECTED', `connection closed: ${reason}`));
    }
    pending.clear();
    for (const s of subscriptions) s.dispose();
  }

  function request(frame: { t: 'req'; method: string; params: unknown } | { t: 'sub' | 'unsub'; event: string }, options: CallOptions = {}) {
    if (closed) return Promise.reject(new LabError('DISCONNECTED', 'the connection is closed'));
    const id = newId();
    return new Promise<unknown>((resolve, reject) => {
      const { signal, timeoutMs } = options;
      if (signal?.aborted) return reject(new LabError('CANCELLED', 'cancelled before it was sent'));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const abandon = (error: LabError) => {
        if (!pending.has(id)) return;
        pending.delete(id);
        cleanup();
        safeSend({ t: 'cancel', id });
        reject(error);
      };
      const onAbort = () => abandon(new LabError('CANCELLED', 'cancelled by the caller'));
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      if (timeoutMs !== undefined) timer = setTimeout(() => abandon(new LabError('TIMEOUT', `no answer within ${timeoutMs} ms`)), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      pending.set(id, { resolve, reject, cleanup });
      safeSend({ ...frame, id } as Parameters<typeof encodeFrame>[0]);
    });
  }

  return {
    call(method, input, options) {
      return request({ t: 'req', method, params: input }, options) as Promise<never>;
    },
    on(event, listener) {
      return listeners.add(event, listener as (payload: unknown) => void);
    },
    onProtocolError(listener) {
      protocolListeners.add(listener);
      return () => protocolListeners.delete(listener);
    },
    get closed() {
      return closed;
    },
    close() {
      transport.close();
      shutdown('closed by the client');
    },
  };
}
