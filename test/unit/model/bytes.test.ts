import { describe, expect, test } from 'vitest';
import {
  BYTE_LEVEL_ORDER,
  BYTE_TO_CHAR,
  ByteEscapeError,
  bytesToText,
  splitByteEscapes,
  textToBytes,
} from '../../../native/model/tokenizer/bytes';
import { seededRandom } from '../../helpers/corpus';

const b = (...xs: number[]) => Uint8Array.from(xs);

describe('bytes <-> text with byte escapes', () => {
  test('valid UTF-8 decodes as text, unchanged', () => {
    const text = 'héllo\u0000 wörld \uFEFF 日本語 😀\r\n\x1b[31mred\x1b[0m';
    expect(bytesToText(new TextEncoder().encode(text))).toBe(text);
    expect(textToBytes(text)).toEqual(new TextEncoder().encode(text));
  });

  test.each([
    ['Latin-1 é', b(0x63, 0x61, 0x66, 0xe9), 'caf\uDCE9'],
    ['lone continuation byte', b(0x80), '\uDC80'],
    ['overlong NUL', b(0xc0, 0x80), '\uDCC0\uDC80'],
    ['UTF-16 surrogate in UTF-8', b(0xed, 0xa0, 0x80), '\uDCED\uDCA0\uDC80'],
    ['beyond U+10FFFF', b(0xf4, 0x90, 0x80, 0x80), '\uDCF4\uDC90\uDC80\uDC80'],
    ['a character cut at the end', b(0x41, 0xe2, 0x82), 'A\uDCE2\uDC82'],
    ['a cut character followed by ASCII', b(0xe2, 0x82, 0x41), '\uDCE2\uDC82A'],
    ['0xFF and 0xFE', b(0xff, 0xfe, 0x41), '\uDCFF\uDCFEA'],
  ])('%s: every ill-formed byte becomes its escape', (_name, bytes, text) => {
    expect(bytesToText(bytes)).toBe(text);
    expect(textToBytes(text)).toEqual(bytes);
  });

  test('random byte strings survive bytes -> text -> bytes exactly', () => {
    const rand = seededRandom(7);
    for (let n = 0; n < 2000; n++) {
      const len = Math.floor(rand() * 40);
      // Mostly high bytes, so that valid and invalid multi-byte sequences both occur often.
      const bytes = Uint8Array.from({ length: len }, () =>
        rand() < 0.3 ? Math.floor(rand() * 128) : 0x80 + Math.floor(rand() * 128),
      );
      const text = bytesToText(bytes);
      // Only byte escapes may be lone surrogates in the result.
      expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDC7F]/.test(text)).toBe(false);
      expect(textToBytes(text)).toEqual(bytes);
      expect(bytesToText(textToBytes(text))).toBe(text);
    }
  });

  test('strings that no byte string decodes to are refused, not altered', () => {
    expect(() => textToBytes('a\uD800b')).toThrow(ByteEscapeError);
    expect(() => textToBytes('a\uDC41')).toThrow(/not an escaped byte/);
    // Escapes of C3 A9 would re-form "é": bytesToText never produces this, so it is not canonical.
    expect(() => textToBytes('\uDCC3\uDCA9')).toThrow(/not a canonical byte escape/);
    expect(() => splitByteEscapes('ok\uDFFF')).toThrow(/index 2/);
  });

  test('splitByteEscapes separates text from raw bytes in order', () => {
    expect(splitByteEscapes('ab\uDCFF\uDCFEc😀')).toEqual([
      { kind: 'text', text: 'ab' },
      { kind: 'bytes', bytes: b(0xff, 0xfe) },
      { kind: 'text', text: 'c😀' },
    ]);
  });

  test('the byte-level alphabet is GPT-2s: 256 distinct printable characters, ordered as in its vocabulary', () => {
    expect(new Set(BYTE_TO_CHAR).size).toBe(256);
    expect(BYTE_TO_CHAR[0x20]).toBe('Ġ');
    expect(BYTE_TO_CHAR[0x0a]).toBe('Ċ');
    expect(BYTE_TO_CHAR[0x41]).toBe('A');
    // GPT-2 vocabulary ids 0..255: "!" is 0, "Ā" (byte 0) is 188, "Ġ" (space) is 220.
    expect(BYTE_LEVEL_ORDER[0]).toBe(0x21);
    expect(BYTE_LEVEL_ORDER[188]).toBe(0x00);
    expect(BYTE_LEVEL_ORDER[220]).toBe(0x20);
  });
});
