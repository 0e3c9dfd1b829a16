/**
 * Is Electron's binary here? electron@45 installs without it and downloads it on first launch, which fails
 * offline; we look at its files rather than `require('electron')`, which would start that download.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface ElectronInfo {
  version: string | null;
  binary: boolean;
  binaryPath: string | null;
  hint: string | null;
}

const require = createRequire(import.meta.url);
export const ELECTRON_BINARY_HINT =
  'the Electron binary is not installed; on a connected machine run `npx install-electron`, or use web mode (`t1lab serve`)';

export function electronInfo(): ElectronInfo {
  if (process.versions.electron)
    return { version: process.versions.electron, binary: true, binaryPath: process.execPath, hint: null };
  let dir: string;
  try {
    dir = dirname(require.resolve('electron/package.json'));
  } catch {
    return { version: null, binary: false, binaryPath: null, hint: 'electron is not installed: run `npm ci`' };
  }
  const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  const pathFile = join(dir, 'path.txt');
  const executable = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const binaryPath = executable ? join(dir, 'dist', executable) : null;
  const binary = !!binaryPath && existsSync(binaryPath);
  return { version, binary, binaryPath: binary ? binaryPath : null, hint: binary ? null : ELECTRON_BINARY_HINT };
}
