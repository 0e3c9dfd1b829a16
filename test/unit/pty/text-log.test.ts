import { describe, expect, it } from 'vitest';
import { TextLog } from '../../../native/pty/text-log';

function transcript(chunks: string[]): { text: string; partial: string } {
  let text = '';
  const log = new TextLog((t) => (text += t));
  for (const c of chunks) log.write(c);
  return { text, partial: log.partial };
}

describe('TextLog', () => {
  it('drops colours and other escape sequences', () => {
    expect(transcript(['\x1b[1;31mred\x1b[0m plain\r\n']).text).toBe('red plain\n');
    expect(transcript(['\x1b]0;title\x07a\x1bPdcs\x1b\\b\x1b(Bc\r\n']).text).toBe('abc\n');
  });
  it('applies carriage returns: a progress bar ends as its last state', () => {
    expect(transcript(['10%\r50%\r100%\r\n']).text).toBe('100%\n');
  });
  it('applies backspace and erase-to-end-of-line', () => {
    expect(transcript(['abcd\b\b\x1b[Kxy\r\n']).text).toBe('abxy\n');
  });
  it('expands tabs to 8-column stops', () => {
    expect(transcript(['a\tb\r\n']).text).toBe('a       b\n');
  });
  it('handles escape sequences split across writes', () => {
    expect(transcript(['a\x1b', '[3', '1mb\x1b]0;t', 'itle\x07c\r', '\n']).text).toBe('abc\n');
  });
  it('keeps the current line as partial until a newline', () => {
    const t = transcript(['done\r\nroot@sandbox:/app# ']);
    expect(t.text).toBe('done\n');
    expect(t.partial).toBe('root@sandbox:/app#');
  });
  it('keeps non-ASCII text', () => {
    expect(transcript(['héllo 世界 🎉\r\n']).text).toBe('héllo 世界 🎉\n');
  });
});
