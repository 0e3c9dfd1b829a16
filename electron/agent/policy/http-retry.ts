/**
 * POST JSON with a per-attempt timeout and retries with exponential backoff (and Retry-After) on 429, 5xx,
 * network errors and timeouts. Other 4xx fail at once: retrying a bad request wastes the budget.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PolicyError, type RetryOptions } from './types';

export const DEFAULT_RETRY: RetryOptions = { timeoutMs: 120_000, maxRetries: 4, baseDelayMs: 500, maxDelayMs: 30_000 };

export interface PostResult {
  body: unknown;
  /** Attempts it took (1 = no retry), and why each retry happened. */
  attempts: number;
  retries: string[];
}

function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

export async function postJson(
  url: string,
  payload: unknown,
  headers: Record<string, string>,
  signal: AbortSignal,
  options: RetryOptions,
): Promise<PostResult> {
  const retries: string[] = [];
  for (let attempt = 0; ; attempt++) {
    let reason: string;
    let waitMs: number | null = null;
    const timeout = AbortSignal.timeout(options.timeoutMs);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(payload),
        signal: AbortSignal.any([signal, timeout]),
      });
      const text = await response.text();
      if (response.ok) {
        try {
          return { body: JSON.parse(text) as unknown, attempts: attempt + 1, retries };
        } catch {
          throw new PolicyError(
            `${url} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`,
          );
        }
      }
      reason = `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`;
      if (response.status !== 429 && response.status < 500)
        throw new PolicyError(`${url} refused the request: ${reason}`);
      waitMs = retryAfterMs(response.headers.get('retry-after'));
    } catch (error) {
      if (error instanceof PolicyError) throw error;
      if (signal.aborted) throw signal.reason ?? error;
      reason = timeout.aborted
        ? `no answer within ${options.timeoutMs} ms`
        : `network error: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`;
    }
    retries.push(reason);
    if (attempt >= options.maxRetries)
      throw new PolicyError(`${url}: gave up after ${attempt + 1} attempts; last: ${reason}`);
    const backoff = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt) * (0.75 + Math.random() * 0.5);
    await sleep(Math.min(options.maxDelayMs, waitMs ?? backoff), undefined, { signal });
  }
}
