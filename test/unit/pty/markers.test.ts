import { describe, expect, it } from 'vitest';
import { MarkerFilter, markerSequence, type Token } from '../../../native/pty/markers';

const collect = (f: MarkerFilter, chunks: string[]): Token[] => chunks.flatMap((c) => f.push(c));
const dataOf = (tokens: Token[]) =>
  tokens
    .filter((t) => t.type === 'data')
    .map((t) => (t as { text: string }).text)
    .join('');

describe('MarkerFilter', () => {
  const nonce = 'n0nce';
  const C = markerSequence(nonce, 'C');
  const D = markerSequence(nonce, 'D', '3');
  it('takes markers out in order, with their argument', () => {
    const tokens = collect(new MarkerFilter(nonce), [`ls\r\n${C}a b\r\n${D}prompt$ `]);
    expect(tokens).toEqual([
      { type: 'data', text: 'ls\r\n' },
      { type: 'mark', kind: 'C', arg: null },
      { type: 'data', text: 'a b\r\n' },
      { type: 'mark', kind: 'D', arg: '3' },
      { type: 'data', text: 'prompt$ ' },
    ]);
  });
  it('finds a marker split across chunks at any point', () => {
    const stream = `x${C}y${D}z`;
    for (let i = 1; i < stream.length; i++) {
      for (let j = i + 1; j < stream.length; j++) {
        const tokens = collect(new MarkerFilter(nonce), [stream.slice(0, i), stream.slice(i, j), stream.slice(j)]);
        expect(dataOf(tokens)).toBe('xyz');
        expect(tokens.filter((t) => t.type === 'mark').map((t) => (t as { kind: string }).kind)).toEqual(['C', 'D']);
      }
    }
  });
  it('passes a look-alike without the nonce, and other OSC sequences, through as data', () => {
    const fake = markerSequence('wrong', 'D', '0');
    const title = '\x1b]0;title\x07';
    const tokens = collect(new MarkerFilter(nonce), [`${fake}${title}ok`]);
    expect(tokens.every((t) => t.type === 'data')).toBe(true);
    expect(dataOf(tokens)).toBe(`${fake}${title}ok`);
  });
  it('gives up holding an unterminated marker that grows too long', () => {
    const f = new MarkerFilter(nonce);
    const junk = `\x1b]6973;${'a'.repeat(300)}`;
    expect(dataOf(f.push(junk))).toBe(junk);
  });
  it('returns a held partial marker on flush', () => {
    const f = new MarkerFilter(nonce);
    expect(dataOf(f.push('abc\x1b]69'))).toBe('abc');
    expect(f.flush()).toBe('\x1b]69');
  });
});
