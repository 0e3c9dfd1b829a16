/**
 * The envelopes every transport carries, as JSON text frames. One frame is one message.
 *
 *   client -> host   req {id, method, params}     call a method
 *                    cancel {id}                   abort call `id`
 *                    sub {id, event} / unsub       start / stop receiving an event
 *   host -> client   res {id, ok, result|error}   answer to req / sub / unsub
 *                    evt {event, payload}          an event the client subscribed to
 *
 * A frame that cannot be parsed is answered with `res {id: null, ok: false}` so the peer can log it.
 */
import { z } from 'zod';
import { WireError } from './errors';

/** Frames above this many UTF-16 code units are refused unparsed (a trajectory or a screen fits well inside). */
export const DEFAULT_MAX_FRAME_CHARS = 16 * 1024 * 1024;

export const RequestId = z.string().min(1).max(64);

export const RequestFrame = z.object({
  t: z.literal('req'),
  id: RequestId,
  method: z.string().max(128),
  params: z.unknown(),
});
export const CancelFrame = z.object({ t: z.literal('cancel'), id: RequestId });
export const SubscribeFrame = z.object({ t: z.enum(['sub', 'unsub']), id: RequestId, event: z.string().max(128) });
export const ClientFrame = z.discriminatedUnion('t', [RequestFrame, CancelFrame, SubscribeFrame]);
export type ClientFrame = z.infer<typeof ClientFrame>;

export const ResponseFrame = z.union([
  z.object({ t: z.literal('res'), id: RequestId.nullable(), ok: z.literal(true), result: z.unknown() }),
  z.object({ t: z.literal('res'), id: RequestId.nullable(), ok: z.literal(false), error: WireError }),
]);
export type ResponseFrame = z.infer<typeof ResponseFrame>;
export const EventFrame = z.object({ t: z.literal('evt'), event: z.string(), payload: z.unknown() });
export type EventFrame = z.infer<typeof EventFrame>;
export const HostFrame = z.union([ResponseFrame, EventFrame]);
export type HostFrame = z.infer<typeof HostFrame>;

export function encodeFrame(frame: ClientFrame | HostFrame): string {
  return JSON.stringify(frame);
}
