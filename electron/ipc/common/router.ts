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

type AnyHandler = (input: unknown, ctx: HandlerContext) => unknown;
type MethodSchemas = { input: z.ZodType; output: z.ZodType };

/** What every step of the router reads: the contract as tables, the options with their defaults. */
interface RouterCore {
  events: Contract['events'];
  methods: Record<string, MethodSchemas>;
  handlers: Record<string, AnyHandler>;
  maxFrameChars: number;
  authorize: (peer: Peer, method: string) => boolean;
  log: (message: string) => void;
}

export function createRouter<C extends Contract>(
  contract: C,
  handlers: Handlers<C>,
  options: RouterOptions = {},
): Router<C> {
  const core: RouterCore = {
    events: contract.events,
    methods: contract.methods as Record<string, MethodSchemas>,
    handlers: handlers as unknown as Record<string, AnyHandler>,
    maxFrameChars: options.maxFrameChars ?? DEFAULT_MAX_FRAME_CHARS,
    authorize: options.authorize ?? (() => true),
    log: options.log ?? (() => {}),
  };
  const attached = new Map<string, Attached>();
  return {
    attach: (connection) => attachConnection(core, attached, connection),
    emit(event, payload) {
      for (const a of attached.values()) if (a.subscriptions.has(event)) send(core, a, { t: 'evt', event, payload });
    },
    emitTo(connectionId, event, payload) {
      const a = attached.get(connectionId);
      if (a?.subscriptions.has(event)) send(core, a, { t: 'evt', event, payload });
    },
    get connectionCount() {
      return attached.size;
    },
    dispose: () => detachAll(attached),
  };
}

function send(core: RouterCore, a: Attached, frame: HostFrame): void {
  try {
    a.connection.send(encodeFrame(frame));
  } catch (error) {
    core.log(`send to ${a.connection.id} failed: ${toWireError(error).message}`);
  }
}

function fail(core: RouterCore, a: Attached, id: string | null, error: WireError): void {
  send(core, a, { t: 'res', id, ok: false, error });
}

/** Registers a connection: its frames go to `onFrame`, and its close (or the returned dispose) aborts what it has in flight. */
function attachConnection(core: RouterCore, attached: Map<string, Attached>, connection: ServerConnection): Disposable {
  const a: Attached = { connection, subscriptions: new Set(), inflight: new Map(), disposables: [] };
  attached.set(connection.id, a);
  const detach = () => {
    if (attached.get(connection.id) !== a) return;
    attached.delete(connection.id);
    abortInflight(a, 'the caller disconnected');
    a.inflight.clear();
    for (const d of a.disposables) d.dispose();
  };
  a.disposables.push(
    connection.onFrame((text, peer) => {
      onFrame(core, a, text, peer).catch((error) => core.log(`router bug: ${toWireError(error).message}`));
    }),
    connection.onClose(() => detach()),
  );
  return { dispose: detach };
}

function detachAll(attached: Map<string, Attached>): void {
  for (const a of [...attached.values()]) {
    abortInflight(a, 'the host is shutting down');
    for (const d of a.disposables) d.dispose();
  }
  attached.clear();
}

function abortInflight(a: Attached, why: string): void {
  for (const controller of a.inflight.values()) controller.abort(new LabError('DISCONNECTED', why));
}

export type ReadFrame = { ok: true; frame: ClientFrame } | { ok: false; id: string | null; error: WireError };

/** A frame's text as a client envelope, or the coded error to answer it with: too large, not JSON, not an envelope. */
export function readClientFrame(text: string, maxFrameChars: number): ReadFrame {
  if (text.length > maxFrameChars) {
    const message = `frame of ${text.length} chars exceeds the limit of ${maxFrameChars}`;
    return { ok: false, id: null, error: { code: 'MESSAGE_TOO_LARGE', message } };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      id: null,
      error: { code: 'MALFORMED', message: `frame is not JSON: ${(error as Error).message}` },
    };
  }
  const parsed = ClientFrame.safeParse(json);
  if (!parsed.success) {
    const id =
      typeof (json as { id?: unknown })?.id === 'string' ? (json as { id: string }).id.slice(0, 64) || null : null;
    return {
      ok: false,
      id,
      error: { code: 'MALFORMED', message: 'frame is not a known envelope', details: parsed.error.issues },
    };
  }
  return { ok: true, frame: parsed.data };
}

async function onFrame(core: RouterCore, a: Attached, text: string, peer: Peer): Promise<void> {
  const read = readClientFrame(text, core.maxFrameChars);
  if (!read.ok) {
    if (read.error.code === 'MESSAGE_TOO_LARGE')
      core.log(`refused a ${text.length}-char frame from ${a.connection.id}`);
    return fail(core, a, read.id, read.error);
  }
  const frame = read.frame;
  switch (frame.t) {
    case 'cancel':
      return cancelRequest(core, a, frame.id);
    case 'sub':
    case 'unsub':
      return changeSubscription(core, a, frame, peer);
    case 'req':
      return handleRequest(core, a, frame.id, frame.method, frame.params, peer);
  }
}

/** Aborts a call in flight and answers it CANCELLED; an id not in flight (already answered) is ignored. */
function cancelRequest(core: RouterCore, a: Attached, id: string): void {
  const controller = a.inflight.get(id);
  if (!controller) return;
  a.inflight.delete(id);
  controller.abort(new LabError('CANCELLED', 'cancelled by the caller'));
  fail(core, a, id, { code: 'CANCELLED', message: 'cancelled by the caller' });
}

function changeSubscription(
  core: RouterCore,
  a: Attached,
  frame: { t: 'sub' | 'unsub'; id: string; event: string },
  peer: Peer,
): void {
  if (!Object.hasOwn(core.events, frame.event)) {
    return fail(core, a, frame.id, { code: 'UNKNOWN_METHOD', message: `unknown event '${frame.event}'` });
  }
  if (!core.authorize(peer, frame.event)) {
    return fail(core, a, frame.id, { code: 'FORBIDDEN', message: `this sender may not receive '${frame.event}'` });
  }
  if (frame.t === 'sub') a.subscriptions.add(frame.event);
  else a.subscriptions.delete(frame.event);
  send(core, a, { t: 'res', id: frame.id, ok: true, result: null });
}

type AdmittedCall =
  { ok: true; spec: MethodSchemas; handler: AnyHandler; input: unknown } | { ok: false; error: WireError };

/** A request's method, its sender's permission and its params checked: the handler to call with parsed input, or the error. */
function admitCall(core: RouterCore, name: string, params: unknown, peer: Peer): AdmittedCall {
  const spec = Object.hasOwn(core.methods, name) ? core.methods[name] : undefined;
  const handler = Object.hasOwn(core.handlers, name) ? core.handlers[name] : undefined;
  if (!spec || !handler) return { ok: false, error: { code: 'UNKNOWN_METHOD', message: `unknown method '${name}'` } };
  if (!core.authorize(peer, name))
    return { ok: false, error: { code: 'FORBIDDEN', message: `this sender may not call '${name}'` } };
  const input = spec.input.safeParse(params ?? {});
  if (!input.success) {
    const where = input.error.issues.map((i) => `${i.path.join('.') || '(params)'}: ${i.message}`).join('; ');
    return { ok: false, error: { code: 'INVALID_PARAMS', message: `${name}: ${where}`, details: input.error.issues } };
  }
  return { ok: true, spec, handler, input: input.data };
}

async function handleRequest(
  core: RouterCore,
  a: Attached,
  id: string,
  name: string,
  params: unknown,
  peer: Peer,
): Promise<void> {
  const call = admitCall(core, name, params, peer);
  if (!call.ok) return fail(core, a, id, call.error);
  if (a.inflight.has(id))
    return fail(core, a, id, { code: 'CONFLICT', message: `request id '${id}' is already in flight` });
  const controller = new AbortController();
  a.inflight.set(id, controller);
  try {
    const result = await call.handler(call.input, { signal: controller.signal, peer, connectionId: a.connection.id });
    if (controller.signal.aborted) return; // already answered CANCELLED
    const output = call.spec.output.safeParse(result);
    if (!output.success) {
      core.log(`handler '${name}' returned data that fails its own schema: ${output.error.message}`);
      return fail(core, a, id, {
        code: 'INTERNAL',
        message: `handler '${name}' returned an invalid result`,
        details: output.error.issues,
      });
    }
    send(core, a, { t: 'res', id, ok: true, result: output.data });
  } catch (error) {
    if (controller.signal.aborted) return;
    const wire = toWireError(error);
    if (wire.code === 'INTERNAL') core.log(`handler '${name}' failed: ${wire.message}`);
    fail(core, a, id, wire);
  } finally {
    a.inflight.delete(id);
  }
}
