/** Where the app's own files are, whether running from source (tsx), from the build (dist/node) or packaged. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const APP_NAME = 't1-lab';

export function appRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === APP_NAME) return dir;
      } catch {
        // not ours; keep walking up
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the ${APP_NAME} package above ${from}`);
    dir = parent;
  }
}

export function rendererDir(root = appRoot()): string {
  return join(root, 'dist', 'renderer');
}

export function appVersion(root = appRoot()): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
}
