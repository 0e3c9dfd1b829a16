/**
 * A request's JSON body for the lab's HTTP services (the environment service, the policy server): at most
 * `limit` bytes (declared or streamed), `application/json` when a type is given, a JSON object. Each service
 * words its own errors (OpenAI's shape, OpenEnv's), so a problem is handed to `fail` to become one.
 */
import type { IncomingMessage } from 'node:http';

export type BodyProblem = 'media-type' | 'too-large' | 'unreadable' | 'not-json' | 'not-object';

/** The service's error for a problem: its HTTP status and the message to say. */
export type BodyFailure = (status: 400 | 413 | 415, message: string, problem: BodyProblem) => Error;

/** The body as a JSON object, or null when it is empty (blank). */
export function readJsonObject(
  req: IncomingMessage,
  limit: number,
  fail: BodyFailure,
): Promise<Record<string, unknown> | null> {
  return new Promise((resolve, reject) => {
    const type = req.headers['content-type'];
    if (type !== undefined && !/^application\/json\b/i.test(type))
      return reject(fail(415, 'send the body as application/json', 'media-type'));
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) return reject(fail(413, `the body is over ${limit} bytes`, 'too-large'));
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(fail(413, `the body is over ${limit} bytes`, 'too-large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => {
      failed = true;
      reject(fail(400, 'the request body could not be read', 'unreadable'));
    });
    req.on('end', () => {
      if (failed) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text.trim()) return resolve(null);
      try {
        const value = JSON.parse(text) as unknown;
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          return reject(fail(400, 'the body must be a JSON object', 'not-object'));
        resolve(value as Record<string, unknown>);
      } catch (e) {
        reject(fail(400, `the body is not JSON: ${(e as Error).message.slice(0, 120)}`, 'not-json'));
      }
    });
  });
}
