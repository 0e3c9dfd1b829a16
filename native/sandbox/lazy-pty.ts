/**
 * node-pty's native binding, loaded on the first interactive shell rather than with the sandbox modules:
 * Electron main and the web host import the sandbox layer for constants and types (shells start only in the
 * pty host worker), and must stay free of native modules. Both backends (bubblewrap, containers) use this.
 */
import { createRequire } from 'node:module';
import type * as Pty from 'node-pty';

let ptyModule: typeof Pty | null = null;

export function nodePty(): typeof Pty {
  ptyModule ??= createRequire(import.meta.url)('node-pty') as typeof Pty;
  return ptyModule;
}
