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

export function tokenFrom(req: IncomingMessage): { token: string | null; via: 'query' | 'cookie' | null } {
  const url = new URL(req.url ?? '/', 'http://placeholder');
  const q = url.searchParams.get('token');
  if (q) return { token: q, via: 'query' };
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === TOKEN_COOKIE) return { token: decodeURIComponent(rest.join('=')), via: 'cookie' };
  }
  return { token: null, via: null };
}

export function hasValidToken(req: IncomingMessage, expected: string): boolean {
  const { token } = tokenFrom(req);
  return token !== null && safeEqual(token, expected);
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
