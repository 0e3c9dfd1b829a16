/**
 * Bytes <-> JS strings without loss, and the GPT-2 byte-level alphabet.
 *
 * Terminals emit bytes that are not valid UTF-8 (Latin-1 file names, binary output, a multi-byte character
 * cut by a read boundary). A JS string cannot hold such bytes, and TextDecoder silently turns them into
 * U+FFFD. The lab represents them the way Python's `surrogateescape` error handler does (PEP 383): every
 * byte that is not part of a well-formed UTF-8 sequence becomes the lone low surrogate U+DC00 + byte
 * (U+DC80..U+DCFF; only bytes >= 0x80 can be ill-formed). The mapping is exact in both directions:
 * `textToBytes(bytesToText(b))` equals `b` for every byte string, and `bytesToText(textToBytes(s))` equals
 * `s` for every well-formed string and for every string `bytesToText` produced. A string holding any other
 * lone surrogate (or an escape sequence that would re-form valid UTF-8, which `bytesToText` never
 * produces) is not the image of any byte string: `textToBytes` throws for it rather than guess.
 */

/** First and last code unit of the escapes for bytes 0x80..0xFF. */
const ESCAPE_BASE = 0xdc00;
const ESCAPE_FIRST = 0xdc80;
const ESCAPE_LAST = 0xdcff;

export class ByteEscapeError extends Error {
  override readonly name = 'ByteEscapeError';
  constructor(
    message: string,
    /** UTF-16 index of the offending code unit. */
    readonly index: number,
  ) {
    super(message);
  }
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** Whether a code unit is the escape of a raw byte. */
export function isByteEscape(codeUnit: number): boolean {
  return codeUnit >= ESCAPE_FIRST && codeUnit <= ESCAPE_LAST;
}

/** The escape character standing for `byte` (0x80..0xFF). */
export function byteEscape(byte: number): string {
  return String.fromCharCode(ESCAPE_BASE + byte);
}

/** Length of the well-formed UTF-8 sequence starting at `i`, or 0 when the byte there starts none (Unicode Table 3-7). */
export function utf8SequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i] as number;
  if (b0 < 0x80) return 1;
  const n = bytes.length;
  const cont = (j: number, lo = 0x80, hi = 0xbf) => j < n && (bytes[j] as number) >= lo && (bytes[j] as number) <= hi;
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const lo = b0 === 0xe0 ? 0xa0 : 0x80;
    const hi = b0 === 0xed ? 0x9f : 0xbf; // ED A0..BF would encode a surrogate
    return cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const lo = b0 === 0xf0 ? 0x90 : 0x80;
    const hi = b0 === 0xf4 ? 0x8f : 0xbf; // beyond U+10FFFF otherwise
    return cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

/** Decode bytes to a string, escaping every byte that is not part of well-formed UTF-8 (see the file comment). */
export function bytesToText(bytes: Uint8Array): string {
  try {
    return strictDecoder.decode(bytes); // the common case: valid UTF-8, decoded natively
  } catch {
    // fall through to the escaping decoder
  }
  let out = '';
  let runStart = 0;
  let i = 0;
  while (i < bytes.length) {
    const len = utf8SequenceLength(bytes, i);
    if (len > 0) {
      i += len;
      continue;
    }
    if (runStart < i) out += strictDecoder.decode(bytes.subarray(runStart, i));
    out += byteEscape(bytes[i] as number);
    i += 1;
    runStart = i;
  }
  if (runStart < bytes.length) out += strictDecoder.decode(bytes.subarray(runStart));
  return out;
}

/**
 * A string split into well-formed text and escaped raw bytes, in order. Throws ByteEscapeError for a lone
 * surrogate that is not a byte escape, and for escapes whose bytes would form valid UTF-8 (not canonical).
 */
export type TextPiece = { kind: 'text'; text: string } | { kind: 'bytes'; bytes: Uint8Array };

export function splitByteEscapes(text: string): TextPiece[] {
  const pieces: TextPiece[] = [];
  let textStart = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) {
      i += 1;
      continue;
    }
    if (c <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        i += 2; // a well-formed surrogate pair
        continue;
      }
      throw new ByteEscapeError(
        `lone high surrogate U+${c.toString(16).toUpperCase()} at index ${i} is not text and not an escaped byte`,
        i,
      );
    }
    if (!isByteEscape(c)) {
      throw new ByteEscapeError(
        `lone low surrogate U+${c.toString(16).toUpperCase()} at index ${i} is not text and not an escaped byte (escapes are U+DC80..U+DCFF)`,
        i,
      );
    }
    if (textStart < i) pieces.push({ kind: 'text', text: text.slice(textStart, i) });
    const runStart = i;
    while (i < text.length && isByteEscape(text.charCodeAt(i))) i += 1;
    const bytes = new Uint8Array(i - runStart);
    for (let k = 0; k < bytes.length; k++) bytes[k] = text.charCodeAt(runStart + k) - ESCAPE_BASE;
    for (let k = 0; k < bytes.length; k++) {
      if (utf8SequenceLength(bytes, k) > 0) {
        throw new ByteEscapeError(
          `escaped bytes at index ${runStart + k} form valid UTF-8 and would decode as text: not a canonical byte escape`,
          runStart + k,
        );
      }
    }
    pieces.push({ kind: 'bytes', bytes });
    textStart = i;
  }
  if (textStart < text.length) pieces.push({ kind: 'text', text: text.slice(textStart) });
  return pieces;
}

/** Encode a string to bytes, turning byte escapes back into their raw bytes (the inverse of bytesToText). */
export function textToBytes(text: string): Uint8Array {
  const pieces = splitByteEscapes(text);
  if (pieces.length === 1 && pieces[0]?.kind === 'text') return encoder.encode(text);
  const parts = pieces.map((p) => (p.kind === 'text' ? encoder.encode(p.text) : p.bytes));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/**
 * GPT-2's byte-level alphabet: each byte maps to one printable character (printable Latin-1 bytes map to
 * themselves, the others to U+0100 onwards), so that any byte string is a string of visible characters.
 * `BYTE_LEVEL_ORDER` lists the bytes in the order of their characters' code points, the order GPT-2 and
 * Qwen give their first 256 vocabulary ids.
 */
export const BYTE_TO_CHAR: readonly string[] = (() => {
  const direct = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const table: string[] = new Array(256);
  let next = 256;
  for (let b = 0; b < 256; b++) table[b] = String.fromCharCode(direct(b) ? b : next++);
  return table;
})();

export const CHAR_TO_BYTE: ReadonlyMap<string, number> = new Map(BYTE_TO_CHAR.map((c, b) => [c, b]));

export const BYTE_LEVEL_ORDER: readonly number[] = Array.from({ length: 256 }, (_, b) => b).sort(
  (a, b) => (BYTE_TO_CHAR[a] as string).charCodeAt(0) - (BYTE_TO_CHAR[b] as string).charCodeAt(0),
);

/** The byte-level string of some bytes (each byte to its alphabet character). */
export function bytesToByteLevel(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += BYTE_TO_CHAR[b];
  return s;
}
