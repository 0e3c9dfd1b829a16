/** Every sampled token is drawn with something visible, so a lone \r, tab or space can be seen and clicked. */
import { describe, expect, test } from 'vitest';
import { tokenDisplayText } from '../../../renderer/src/components/common/token-text';

describe('tokenDisplayText', () => {
  test('control characters become control pictures; a newline keeps its line break after ↵', () => {
    expect(tokenDisplayText('\r')).toBe('␍');
    expect(tokenDisplayText('\t')).toBe('␉');
    expect(tokenDisplayText('\u0000')).toBe('␀');
    expect(tokenDisplayText('\u007f')).toBe('␡');
    expect(tokenDisplayText('a\r\nb')).toBe('a␍↵\nb');
  });

  test('empty text and spaces alone are drawn; spaces inside words are left alone', () => {
    expect(tokenDisplayText('')).toBe('∅');
    expect(tokenDisplayText('  ')).toBe('␣␣');
    expect(tokenDisplayText(' ls')).toBe(' ls');
    expect(tokenDisplayText('é')).toBe('é');
  });
});
