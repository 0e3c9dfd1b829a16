/**
 * Named keys as the bytes a terminal sends. Arrow/Home/End follow the application-cursor mode the
 * program set (DECCKM), as a real terminal does: `less` and `vim` switch it on.
 */
import type { NamedKey } from './types';

const CTRL = /^C-([a-z@[\\\]^_])$/;

const FIXED: Record<string, string> = {
  Enter: '\r',
  Tab: '\t',
  Escape: '\x1b',
  Backspace: '\x7f',
  Delete: '\x1b[3~',
  Insert: '\x1b[2~',
  PageUp: '\x1b[5~',
  PageDown: '\x1b[6~',
  Space: ' ',
  F1: '\x1bOP',
  F2: '\x1bOQ',
  F3: '\x1bOR',
  F4: '\x1bOS',
  F5: '\x1b[15~',
  F6: '\x1b[17~',
  F7: '\x1b[18~',
  F8: '\x1b[19~',
  F9: '\x1b[20~',
  F10: '\x1b[21~',
  F11: '\x1b[23~',
  F12: '\x1b[24~',
};

const CURSOR: Record<string, string> = { Up: 'A', Down: 'B', Right: 'C', Left: 'D', Home: 'H', End: 'F' };

export const NAMED_KEYS: readonly string[] = [...Object.keys(FIXED), ...Object.keys(CURSOR), 'C-a … C-z', 'M-<char>'];

/** The bytes for a named key; throws naming the key when it is unknown. */
export function keyBytes(key: NamedKey, applicationCursor = false): string {
  const fixed = FIXED[key];
  if (fixed !== undefined) return fixed;
  const cursor = CURSOR[key];
  if (cursor !== undefined) return `${applicationCursor ? '\x1bO' : '\x1b['}${cursor}`;
  const ctrl = CTRL.exec(key);
  if (ctrl) return String.fromCharCode((ctrl[1] as string).toUpperCase().charCodeAt(0) & 0x1f);
  const meta = /^M-(.)$/su.exec(key);
  if (meta) return `\x1b${meta[1]}`;
  throw new Error(`unknown key '${key}' (known: ${NAMED_KEYS.join(', ')})`);
}

export function isNamedKey(key: string): key is NamedKey {
  try {
    keyBytes(key as NamedKey);
    return true;
  } catch {
    return false;
  }
}
