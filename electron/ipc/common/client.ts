/**
 * The typed caller of a contract over any transport. The renderer's stores, the CLI's remote mode, the
 * workers' supervisors and the tests all use this one client.
 */
import type { Contract, EventName, EventPayload, MethodInput, MethodName, MethodOutput } from './define';
import { LabError } from './errors';
import { EventListeners } from './event-listeners';
import { encodeFrame, HostFrame, type ResponseFrame } from './protocol';
import type { ClientTransport, Disposable } from './transport';

export interface CallOptions {
  signal?: AbortSignal;
  /** Reject with TIMEOUT after this many ms (and cancel the call on the host). Default: none. */
  timeoutMs?: number;
}

export interface Client<C extends Contract> {
  call<M extends MethodName<C>>(
    method: M,
    input: MethodInput<C, M>,
    options?: CallOptions,
  ): Promise<MethodOutput<C, M>>;
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

type OutboundFrame = { t: 'req'; method: string; params: unknown } | { t: 'sub' | 'unsub'; event: string };

/** One client's connection: the calls awaiting an answer and who hears about frames no call claims. */
interface Connection {
  transport: ClientTransport;
  pending: Map<string, Pending>;
  protocolListeners: Set<(message: string) => void>;
  nextId: number;
  closed: boolean;
  subscriptions: Disposable[];
}

export function createClient<C extends Contract>(transport: ClientTransport): Client<C> {
  const conn: Connection = {
    transport,
    pending: new Map(),
    protocolListeners: new Set(),
    nextId: 1,
    closed: false,
    subscriptions: [],
  };
  const listeners = new EventListeners({
    onFirst: (event) => {
      request(conn, { t: 'sub', event }).catch((error: LabError) =>
        reportProtocolError(conn, `subscribing to '${event}' failed: ${error.message}`),
      );
    },
    onLast: (event) => void request(conn, { t: 'unsub', event }).catch(() => {}),
  });
  conn.subscriptions.push(
    transport.onFrame((text) => receive(conn, listeners, text)),
    transport.onClose((reason) => shutdown(conn, reason)),
  );
  return {
    call(method, input, options) {
      return request(conn, { t: 'req', method, params: input }, options) as Promise<never>;
    },
    on(event, listener) {
      return listeners.add(event, listener as (payload: unknown) => void);
    },
    onProtocolError(listener) {
      conn.protocolListeners.add(listener);
      return () => conn.protocolListeners.delete(listener);
    },
    get closed() {
      return conn.closed;
    },
    close() {
      transport.close();
      shutdown(conn, 'closed by the client');
    },
  };
}

function reportProtocolError(conn: Connection, message: string): void {
  for (const l of conn.protocolListeners) l(message);
}

function safeSend(conn: Connection, frame: Parameters<typeof encodeFrame>[0]): void {
  if (conn.closed) return;
  try {
    conn.transport.send(encodeFrame(frame));
  } catch {
    // The close handler rejects what is pending.
  }
}

/** A frame from the host: an event goes to its listeners, an answer settles its call, anything else is a protocol error. */
function receive(conn: Connection, listeners: EventListeners, text: string): void {
  let frame: HostFrame;
  try {
    frame = HostFrame.parse(JSON.parse(text));
  } catch {
    return reportProtocolError(conn, `unparseable frame from host: ${text.slice(0, 200)}`);
  }
  if (frame.t === 'evt') return listeners.emit(frame.event, frame.payload);
  settle(conn, frame);
}

/** Resolves or rejects the call an answer is for; an error answer that belongs to no call is reported. */
function settle(conn: Connection, frame: ResponseFrame): void {
  const entry = frame.id === null ? undefined : conn.pending.get(frame.id);
  if (!entry) {
    if (!frame.ok) reportProtocolError(conn, `${frame.error.code}: ${frame.error.message}`);
    return;
  }
  conn.pending.delete(frame.id as string);
  entry.cleanup();
  if (frame.ok) entry.resolve(frame.result);
  else entry.reject(LabError.fromWire(frame.error));
}

function shutdown(conn: Connection, reason: string): void {
  if (conn.closed) return;
  conn.closed = true;
  for (const [, entry] of conn.pending) {
    entry.cleanup();
    entry.reject(new LabError('DISCONNECTED', `connection closed: ${reason}`));
  }
  conn.pending.clear();
  for (const s of conn.subscriptions) s.dispose();
}

/** Sends a frame with a fresh id and waits for its answer; the caller's signal or the timeout abandons it (and cancels it on the host). */
function request(conn: Connection, frame: OutboundFrame, options: CallOptions = {}): Promise<unknown> {
  if (conn.closed) return Promise.reject(new LabError('DISCONNECTED', 'the connection is closed'));
  const id = `c${conn.nextId++}`;
  return new Promise<unknown>((resolve, reject) => {
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return reject(new LabError('CANCELLED', 'cancelled before it was sent'));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const abandon = (error: LabError) => {
      if (!conn.pending.has(id)) return;
      conn.pending.delete(id);
      cleanup();
      safeSend(conn, { t: 'cancel', id });
      reject(error);
    };
    const onAbort = () => abandon(new LabError('CANCELLED', 'cancelled by the caller'));
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    if (timeoutMs !== undefined)
      timer = setTimeout(() => abandon(new LabError('TIMEOUT', `no answer within ${timeoutMs} ms`)), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    conn.pending.set(id, { resolve, reject, cleanup });
    safeSend(conn, { ...frame, id } as Parameters<typeof encodeFrame>[0]);
  });
}
