/**
 * Errors cross every process boundary as data: `{code, message}`. Nothing throws a string across IPC.
 * `LabError` is the in-process form; `toWireError` turns anything thrown into the wire form.
 */
import { z } from 'zod';

export const ErrorCode = z.enum([
  /** The frame was not JSON, or not a known envelope. */
  'MALFORMED',
  /** The frame exceeded the transport's size limit; it was not parsed. */
  'MESSAGE_TOO_LARGE',
  /** The method (or event) is not part of the contract. */
  'UNKNOWN_METHOD',
  /** The payload failed the method's schema. */
  'INVALID_PARAMS',
  /** The sender is not allowed to call this method. */
  'FORBIDDEN',
  /** The caller cancelled the request. */
  'CANCELLED',
  /** The request took longer than its deadline. */
  'TIMEOUT',
  /** The connection closed before a response arrived. */
  'DISCONNECTED',
  /** A named thing (task, run, session, checkpoint) does not exist. */
  'NOT_FOUND',
  /** The request is valid but cannot be done in the current state. */
  'CONFLICT',
  /** A required component is missing on this machine (bwrap, a GPU, a model). */
  'UNAVAILABLE',
  /** A worker process died while serving the request. */
  'WORKER_CRASHED',
  /** Anything else: a bug. The message says what. */
  'INTERNAL',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const WireError = z.object({
  code: ErrorCode,
  message: z.string(),
  /** Structured detail, e.g. the schema issues of INVALID_PARAMS. */
  details: z.unknown().optional(),
});
export type WireError = z.infer<typeof WireError>;

export class LabError extends Error {
  override readonly name = 'LabError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  toWire(): WireError {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  static fromWire(error: WireError): LabError {
    return new LabError(error.code, error.message, error.details);
  }
}

export function toWireError(error: unknown): WireError {
  if (error instanceof LabError) return error.toWire();
  if (error instanceof Error) return { code: 'INTERNAL', message: error.message };
  return { code: 'INTERNAL', message: String(error) };
}
