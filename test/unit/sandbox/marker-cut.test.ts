/** Cutting the pty's exit marker out of its output, however the chunks split it. */
import { describe, expect, it } from 'vitest';
import { MarkerCut } from '../../../native/sandbox/marker-cut';

const MARKER = '\x1b_T1LAB-DRAIN-ABC\x1b\\';

describe('MarkerCut', () => {
  it('passes text through untouched, and cuts the marker out of any split into chunks', () => {
    const text = `output 1\r\nlast line\r\n${MARKER}after`;
    for (let a = 0; a <= text.length; a++) {
      for (let b = a; b <= text.length; b += 3) {
        const cut = new MarkerCut(MARKER);
        const out = [text.slice(0, a), text.slice(a, b), text.slice(b)].map((c) => cut.push(c)).join('');
        expect(cut.found).toBe(true);
        expect(out).toBe('output 1\r\nlast line\r\nafter');
      }
    }
  });

  it('holds back only what could start the marker, and gives it up on flush', () => {
    const cut = new MarkerCut(MARKER);
    expect(cut.push('abc\x1b')).toBe('abc');
    expect(cut.push('[31m red')).toBe('\x1b[31m red');
    expect(cut.push('end \x1b_T1')).toBe('end ');
    expect(cut.found).toBe(false);
    expect(cut.flush()).toBe('\x1b_T1');
  });
});
