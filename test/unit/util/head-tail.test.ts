import { describe, expect, it } from 'vitest';
import { capHeadTail, HeadTail } from '../../../native/util/head-tail';

describe('HeadTail', () => {
  it('keeps everything that fits', () => {
    const h = new HeadTail(10);
    h.push('abc');
    h.push('def');
    expect(h.text()).toBe('abcdef');
    expect(h.truncatedChars).toBe(0);
  });
  it('keeps head and tail and names the cut', () => {
    const h = new HeadTail(10);
    for (const c of 'abcdefghijklmnopqrstuvwxyz') h.push(c);
    expect(h.truncatedChars).toBe(16);
    expect(h.text()).toBe('abcde\n[... 16 chars cut ...]\nvwxyz');
    expect(h.totalChars).toBe(26);
  });
  it('stays bounded under a flood', () => {
    const h = new HeadTail(100);
    const chunk = 'x'.repeat(10_000);
    for (let i = 0; i < 1000; i++) h.push(chunk);
    expect(h.truncatedChars).toBe(10_000_000 - 100);
    expect(h.text().length).toBeLessThan(200);
  });
  it('caps one string', () => {
    expect(capHeadTail('0123456789', 4)).toEqual({ text: '01\n[... 6 chars cut ...]\n89', truncatedChars: 6 });
  });
});
