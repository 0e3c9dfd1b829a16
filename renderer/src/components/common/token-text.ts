/**
 * How one sampled token's text is drawn in a token strip. A token can be a lone carriage return, tab,
 * other control byte or space: drawn as is it has no width, cannot be seen or clicked, and a researcher
 * cannot tell it was sampled. Control characters become their Unicode control pictures (␍, ␀, …), a
 * newline shows ↵ before the line break it makes, and text with no characters at all shows ∅.
 */
export function tokenDisplayText(text: string): string {
  if (text === '') return '∅';
  // eslint-disable-next-line no-control-regex
  const visible = text.replace(/[\u0000-\u0009\u000b-\u001f\u007f]/g, (c) =>
    c === '\u007f' ? '␡' : String.fromCharCode(0x2400 + c.charCodeAt(0)),
  );
  const shown = visible.replace(/\n/g, '↵\n');
  // Only spaces: a pre-wrap line can hang trailing spaces at zero width, so show them as ␣.
  return /^ +$/.test(shown) ? shown.replace(/ /g, '␣') : shown;
}
