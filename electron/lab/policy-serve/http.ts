/** JSON over node:http for the policy server: bodies read within a limit, answers and errors in OpenAI's shape. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonObject, type BodyProblem } from '../json-body';
import { ApiError, errorBody } from './errors';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** An ApiError as its status and body; anything else is a 500 whose detail stays in the server's log. */
export function sendError(res: ServerResponse, error: unknown, log?: (line: string) => void): void {
  if (error instanceof ApiError) {
    sendJson(
      res,
      error.status,
      errorBody(error.status, error.message, error.param, error.code),
      error.retryAfterSec !== undefined ? { 'retry-after': String(error.retryAfterSec) } : {},
    );
    return;
  }
  log?.(`internal error: ${(error as Error)?.stack ?? String(error)}`);
  sendJson(res, 500, errorBody(500, 'internal error (logged on the server)'));
}

/** OpenAI's error codes and the field they name, per body problem. */
const BODY_ERRORS: Record<BodyProblem, { param: string | null; code?: string }> = {
  'media-type': { param: null, code: 'unsupported_media_type' },
  'too-large': { param: null, code: 'body_too_large' },
  unreadable: { param: null },
  'not-json': { param: 'body', code: 'invalid_json' },
  'not-object': { param: 'body', code: 'invalid_json' },
};

/** The JSON body, at most `limit` bytes (413 beyond), a JSON object (400 otherwise, an empty body too). */
export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const body = await readJsonObject(
    req,
    limit,
    (status, message, problem) => new ApiError(status, message, BODY_ERRORS[problem].param, BODY_ERRORS[problem].code),
  );
  if (body === null) throw new ApiError(400, 'the body is empty: send a JSON object', 'body', 'invalid_json');
  return body;
}
