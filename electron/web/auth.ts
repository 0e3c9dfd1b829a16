/**
 * Web mode exposes shells, so it is the app's most dangerous surface. Every HTTP request and WebSocket
 * upgrade needs the per-launch token (query `?token=` or the cookie set from it); the Host header must
 * name this server (DNS-rebinding defence); a WebSocket's Origin must be this server's own.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_COOKIE = 't1lab_token';

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The request target as a URL, or null when it is not an origin-form path a browser would send (`//[`,
 * `*`, `http://x/`, a path that is not valid percent-encoding): such a request gets 400.
 */
export function requestTarget(req: IncomingMessage): URL | null {
  const raw = req.url ?? '';
  if (!raw.startsWith('/') || raw.startsWith('//')) return null;
  let url: URL;
  try {
    url = new URL(`http://placeholder${raw}`);
    decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  return url;
}

export type TokenLookup = { token: string | null; via: 'query' | 'cookie' | null } | { malformed: string };

/** The token a request carries (query first, then the cookie). A cookie that is not valid percent-encoding is malformed (400). */
export function tokenFrom(target: URL, cookieHeader: string | undefined): TokenLookup {
  const q = target.searchParams.get('token');
  if (q) return { token: q, via: 'query' };
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name !== TOKEN_COOKIE) continue;
    try {
      return { token: decodeURIComponent(rest.join('=')), via: 'cookie' };
    } catch {
      return { malformed: `the ${TOKEN_COOKIE} cookie is not valid percent-encoding` };
    }
  }
  return { token: null, via: null };
}

export interface Gate {
  token: string;
  allowed: Set<string>;
  wildcardBind: boolean;
}

export type Admission =
  { ok: true; target: URL; via: 'query' | 'cookie' } | { ok: false; status: 400 | 401 | 403; message: string };

/**
 * Whether a request (HTTP or WebSocket upgrade) gets in: 400 when malformed, 403 for a foreign Host, 401
 * without the token. Never throws, whatever the request holds.
 */
export function admit(req: IncomingMessage, gate: Gate): Admission {
  const target = requestTarget(req);
  if (!target) return { ok: false, status: 400, message: 'malformed request target' };
  if (!hostAllowed(req, gate.allowed, gate.wildcardBind))
    return { ok: false, status: 403, message: 'unexpected Host header' };
  const found = tokenFrom(target, req.headers.cookie);
  if ('malformed' in found) return { ok: false, status: 400, message: found.malformed };
  if (found.token === null || !safeEqual(found.token, gate.token)) {
    return {
      ok: false,
      status: 401,
      message: 'T1 Lab: this page needs the token printed by `t1lab serve` (open the URL it printed)',
    };
  }
  return { ok: true, target, via: found.via! };
}

/** The Host header values this server answers to: its bound address, and localhost names when loopback. */
export function allowedHosts(boundHost: string, port: number): Set<string> {
  const hosts = new Set([`${boundHost}:${port}`]);
  if (boundHost === '127.0.0.1' || boundHost === 'localhost' || boundHost === '::1') {
    for (const h of ['127.0.0.1', 'localhost', '[::1]']) hosts.add(`${h}:${port}`);
  }
  return hosts;
}

export function hostAllowed(req: IncomingMessage, allowed: Set<string>, wildcardBind: boolean): boolean {
  const host = req.headers.host;
  if (!host) return false;
  // Bound to 0.0.0.0 the server has no single name; the token is then the only gate (the user was warned).
  return wildcardBind || allowed.has(host.toLowerCase());
}

/** A browser's WebSocket always carries Origin; it must be this server (scheme + Host). Non-browser clients send none. */
export function originAllowed(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  return origin === `http://${req.headers.host}`;
}
