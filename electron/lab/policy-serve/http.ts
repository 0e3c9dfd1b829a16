/** JSON over node:http for the policy server: bodies read within a limit, answers and errors in OpenAI's shape. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, errorBody } from './errors';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An ApiError as its status and body; anything else is a 500 whose detail stays in the server's log. */
export function sendError(res: ServerResponse, error: unknown, log?: (line: string) => void): void {
  if (error instanceof ApiError) {
    sendJson(res, error.status, errorBody(error.status, error.message, error.param, error.code), error.retryAfterSec !== undefined ? { 'retry-after': String(error.retryAfterSec) } : {});
    return;
  }
  log?.(`internal error: ${(error as Error)?.stack ?? String(error)}`);
  sendJson(res, 500, errorBody(500, 'internal error (logged on the server)'));
}

/** The JSON body, at most `limit` bytes (413 beyond), a JSON object (400 otherwise). */
export function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const type = req.headers['content-type'];
    if (type !== undefined && !/^application\/json\b/i.test(type)) return reject(new ApiError(415, 'send the body as application/json', null, 'unsupported_media_type'));
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) return reject(new ApiError(413, `the body is over ${limit} bytes`, null, 'body_too_large'));
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new ApiError(413, `the body is over ${limit} bytes`, null, 'body_too_large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => {
      failed = true;
      reject(new ApiError(400, 'the request body could not be read'));
    });
    req.on('end', () => {
      if (failed) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text.trim()) return reject(new ApiError(400, 'the body is empty: send a JSON object', 'body', 'invalid_json'));
      try {
        const value = JSON.parse(text) as unknown;
        if (value === null || typeof value !== 'object' || Array.isArray(value)) return reject(new ApiError(400, 'the body must be a JSON object', 'body', 'invalid_json'));
        resolve(value);
      } catch (e) {
        reject(new ApiError(400, `the body is not JSON: ${(e as Error).message.slice(0, 120)}`, 'body', 'invalid_json'));
      }
    });
  });
}
