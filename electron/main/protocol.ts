/** The app:// protocol: serves the renderer bundle from disk with the same CSP as web mode. */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { resolveStatic, securityHeaders } from '../web/static';
import type { ElectronDeps } from './deps';

export const APP_SCHEME = 'app';

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.map': 'application/json',
  '.png': 'image/png',
};

/** Must run before app 'ready'. */
export function registerAppScheme(protocol: ElectronDeps['protocol']): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } },
  ]);
}

export function appProtocolHandler(rendererDir: string): (request: Request) => Promise<Response> {
  return async (request) => {
    const url = new URL(request.url);
    if (url.host !== 'lab') return new Response('not found', { status: 404 });
    const file = resolveStatic(rendererDir, url.pathname === '/' ? '/index.html' : url.pathname);
    if (!file) return new Response('not found', { status: 404 });
    const body = await readFile(file);
    return new Response(body, {
      status: 200,
      headers: { ...securityHeaders("'self'"), 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' },
    });
  };
}
