/**
 * The host side of a contract: validates every inbound frame, checks who sent it, calls the handler and
 * answers with data. A bad frame never throws out of the router; it gets a coded error and the host stays up.
 */
import type { z } from 'zod';
import type { Contract, EventName, EventPayload, MethodName, MethodOutput, ParsedInput } from './define';
import { LabError, toWireError, type WireError } from './errors';
import { ClientFrame, DEFAULT_MAX_FRAME_CHARS, encodeFrame, type HostFrame } from './protocol';
import type { Disposable, Peer, ServerConnection } from './transport';

export interface HandlerContext {
  /** Aborted when the caller cancels or disconnects. */
  readonly signal: AbortSignal;
  readonly peer: Peer;
  readonly connectionId: string;
}

export type Handler<C extends Contract, M extends MethodName<C>> = (
  input: ParsedInput<C, M>,
  ctx: HandlerContext,
) => MethodOutput<C, M> | Promise<MethodOutput<C, M>>;

export type Handlers<C extends Contract> = { [M in MethodName<C>]: Handler<C, M> };

export interface RouterOptions {
  /** Frames longer than this (in UTF-16 code units) are refused unparsed. */
  maxFrameChars?: number;
  /** Decides whether `peer` may call `method` (or subscribe to an event). Default: everyone. */
  authorize?: (peer: Peer, method: string) => boolean;
  /** Where the router reports problems it answered (bad frames, handler bugs). */
  log?: (message: string) => void;
}

export interface Router<C extends Contract> {
  attach(connection: ServerConnection): Disposable;
  emit<E extends EventName<C>>(event: E, payload: EventPayload<C, E>): void;
  /** Send an event to one connection only (e.g. a terminal's bytes to the client that opened it). */
  emitTo<E extends EventName<C>>(connectionId: string, event: E, payload: EventPayload<C, E>): void;
  readonly connectionCount: number;
  dispose(): void;
}

interface Attached {
  connection: ServerConnection;
  subscriptions: Set<string>;
  inflight: Map<string, AbortController>;
  disposables: Disposable[];
}

export function createRouter<C extends Contract>(contract: C, handlers: Handlers<C>, options: RouterOptions = {}): Router<C> {
  const maxFrameChars = options.maxFrameChars ?? DEFAULT_MAX_FRAME_CHARS;
  const authorize = options.authorize ?? (() => true);
  const log = options.log ?? (() => {});
  const attached = new Map<string, Attached>();
  const methods = contract.methods as Record<string, { input: z.ZodType; output: z.ZodType }>;
  const handlerTable = handlers as unknown as Record<string, (input: unknown, ctx: HandlerContext) => unknown>;

  const send = (a: Attached, frame: HostFrame) => {
    try {
      a.connection.send(encodeFrame(frame));
    } catch (error) {
      log(`send to ${a.connection.id} failed: ${toWireError(error).message}`);
    }
  };
  const fail = (a: Attached, id: string | null, error: WireError) => send(a, { t: 'res', id, ok: false, error });

  async function onFrame(a: Attached, text: string, peer: Peer): Promise<void> {
    if (text.length > maxFrameChars) {
      log(`refused a ${text.length}-char frame from ${a.connection.id}`);
      return fail(a, null, { code: 'MESSAGE_TOO_LARGE', message: `frame of ${text.length} chars exceeds the limit of ${maxFrameChars}` });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      return fail(a, null, { code: 'MALFORMED', message: `frame is not JSON: ${(error as Error).message}` });
    }
    const parsed = ClientFrame.safeParse(json);
    if (!parsed.success) {
      const id = typeof (json as { id?: unknown })?.id === 'string' ? ((json as { id: string }).id.slice(0, 64) || null) : null;
      return fail(a, id, { code: 'MALFORMED', message: 'frame is not a known envelope', details: parsed.error.issues });
    }
    const frame = parsed.data;
    switch (frame.t) {
      case 'cancel': {
        const controller = a.inflight.get(frame.id);
        if (controller) {
          a.inflight.delete(frame.id);
          controller.abort(new LabError('CANCELLED', 'cancelled by the caller'));
          fail(a, frame.id, { code: 'CANCELLED', message: 'cancelled by the caller' });
        }
        return;
      }
      case 'sub':
      case 'unsub': {
        if (!Object.hasOwn(contract.events, frame.event)) {
          return fail(a, frame.id, { code: 'UNKNOWN_METHOD', message: `unknown event '${frame.event}'` });
        }
        if (!authorize(peer, frame.event)) {
          return fail(a, frame.id, { code: 'FORBIDDEN', message: `this sender may not receive '${frame.event}'` });
        }
        if (frame.t === 'sub') a.subscriptions.add(frame.event);
        else a.subscriptions.delete(frame.event);
        return send(a, { t: 'res', id: frame.id, ok: true, result: null });
      }
      case 'req':
        return handleRequest(a, frame.id, frame.method, frame.params, peer);
    }
  }

  async function handleRequest(a: Attached, id: string, name: string, params: unknown, peer: Peer): Promise<void> {
    const spec = Object.hasOwn(methods, name) ? methods[name] : undefined;
    const handler = Object.hasOwn(handlerTable, name) ? handlerTable[name] : undefined;
    if (!spec || !handler) return fail(a, id, { code: 'UNKNOWN_METHOD', message: `unknown method '${name}'` });
    if (!authorize(peer, name)) return fail(a, id, { code: 'FORBIDDEN', message: `this sender may not call '${name}'` });
    const input = spec.input.safeParse(params ?? {});
    if (!input.success) {
      const where = input.error.issues.map((i) => `${i.path.join('.') || '(params)'}: ${i.message}`).join('; ');
      return fail(a, id, { code: 'INVALID_PARAMS', message: `${name}: ${where}`, details: input.error.issues });
    }
    if (a.inflight.has(id)) return fail(a, id, { code: 'CONFLICT', message: `request id '${id}' is already in flight` });
    const controller = new AbortController();
    a.inflight.set(id, controller);
    try {
      const result = await handler(input.data, { signal: controller.signal, peer, connectionId: a.connection.id });
      if (controller.signal.aborted) return; // already answered CANCELLED
      const output = spec.output.safeParse(result);
      if (!output.success) {
        log(`handler '${name}' returned data that fails its own schema: ${output.error.message}`);
        return fail(a, id, { code: 'INTERNAL', message: `handler '${name}' returned an invalid result`, details: output.error.issues });
      }
      send(a, { t: 'res', id, ok: true, result: output.data });
    } catch (error) {
      if (controller.signal.aborted) return;
      const wire = toWireError(error);
      if (wire.code === 'INTERNAL') log(`handler '${name}' failed: ${wire.message}`);
      fail(a, id, wire);
    } finally {
      a.inflight.delete(id);
    }
  }

  return {
    attach(connection) {
      const a: Attached = { connection, subscriptions: new Set(), inflight: new Map(), disposables: [] };
      attached.set(connection.id, a);
      a.disposables.push(
        connection.onFrame((text, peer) => {
          onFrame(a, text, peer).catch((error) => log(`router bug: ${toWireError(error).message}`));
        }),
        connection.onClose(() => detach()),
      );
      const detach = () => {
        if (attached.get(connection.id) !== a) return;
        attached.delete(connection.id);
        for (const controller of a.inflight.values()) controller.abort(new LabError('DISCONNECTED', 'the caller disconnected'));
        a.inflight.clear();
        for (const d of a.disposables) d.dispose();
      };
      return { dispose: detach };
    },
    emit(event, payload) {
      for (const a of attached.values()) if (a.subscriptions.has(event)) send(a, { t: 'evt', event, payload });
    },
    emitTo(connectionId, event, payload) {
      const a = attached.get(connectionId);
      if (a?.subscriptions.has(event)) send(a, { t: 'evt', event, payload });
    },
    get connectionCount() {
      return attached.size;
    },
    dispose() {
      for (const a of [...attached.values()]) {
        for (const controller of a.inflight.values()) controller.abort(new LabError('DISCONNECTED', 'the host is shutting down'));
        for (const d of a.disposables) d.dispose();
      }
      attached.clear();
    },
  };
}
