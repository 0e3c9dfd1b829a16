/**
 * What a request to `t1lab policy serve` did wrong, as OpenAI's error body says it
 * (`{error: {message, type, param, code}}`): clients such as the `openai` packages show `message` and
 * branch on `code`; `param` names the field at fault.
 */

export type ApiStatus = 400 | 401 | 404 | 405 | 413 | 415 | 429 | 503;

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: ApiStatus,
    message: string,
    /** The request field at fault (`messages[2].role`), or null. */
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly retryAfterSec?: number,
  ) {
    super(message);
  }
}

/** OpenAI's error types by status (what its own API answers). */
function typeOf(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export function errorBody(
  status: number,
  message: string,
  param: string | null = null,
  code: string | null = null,
): { error: Record<string, unknown> } {
  return { error: { message, type: typeOf(status), param, code } };
}
