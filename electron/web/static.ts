/** Serves the renderer bundle: only files under its root, with a strict CSP on every response. */
import { createReadStream, existsSync, statSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, relative, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.cast': 'application/x-asciicast',
};

/** The same policy the Electron app:// protocol sends (electron/main/protocol.ts builds it from the same function). */
export function contentSecurityPolicy(connectSrc: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src ${connectSrc}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function securityHeaders(connectSrc: string): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(connectSrc),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
}

/** Resolve a URL path to a file under root, or null when it escapes root or does not exist. SPA fallback to index.html. */
export function resolveStatic(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const candidate = normalize(join(root, decoded));
  const rel = relative(root, candidate);
  if (rel.startsWith('..') || rel.split(sep).includes('..')) return null;
  if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  if (!extname(decoded)) {
    const index = join(root, 'index.html');
    return existsSync(index) ? index : null;
  }
  return null;
}

export function sendFile(res: ServerResponse, file: string, headers: Record<string, string>): void {
  res.writeHead(200, { ...headers, 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
  // A file that vanishes or cannot be read after the stat ends this response, not the host.
  createReadStream(file)
    .on('error', () => res.destroy())
    .pipe(res);
}
