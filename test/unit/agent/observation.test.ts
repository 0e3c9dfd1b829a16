import { describe, expect, it } from 'vitest';
import { cutMiddle, formatCommand, formatKeys } from '../../../electron/agent/observation';

describe('observations', () => {
  it('keeps head and tail within the budget and says how much was cut', () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n');
    const cut = cutMiddle(lines, 1000);
    expect(cut.cutChars).toBeGreaterThan(lines.length - 1100);
    expect(cut.text.startsWith('line 0\n')).toBe(true);
    expect(cut.text.endsWith('line 1999')).toBe(true);
    expect(cut.text).toContain(`[... ${cut.cutChars.toLocaleString('en-US')} characters cut from the middle of the output ...]`);
    expect(cut.text.length).toBeLessThan(1000 + 120);
    expect(cutMiddle('short', 1000)).toEqual({ text: 'short', cutChars: 0 });
  });

  it('reports exit code and duration, or that the command still runs', () => {
    expect(formatCommand({ output: 'hi\n', exitCode: 0, timedOut: false, durationMs: 12, truncatedChars: 0, timeoutSec: 180 }, 100).text).toBe('hi\n[exit code 0 · 0.01 s]');
    const slow = formatCommand({ output: 'waiting', exitCode: null, timedOut: true, durationMs: 5000, truncatedChars: 0, timeoutSec: 5 }, 100).text;
    expect(slow).toMatch(/still running after 5 s; it keeps running: send keys/);
    const screen = formatCommand({ output: '', exitCode: null, timedOut: true, durationMs: 1, truncatedChars: 0, timeoutSec: 1, screen: ['~ vim  ', '', ''] }, 100);
    expect(screen.text).toContain('[full-screen program running; current screen:]\n~ vim\n');
  });

  it('keys observations show new output or say there was none', () => {
    expect(formatKeys({ output: '', durationMs: 1, truncatedChars: 0 }, 100).text).toBe('[no new output]');
    expect(formatKeys({ output: 'x'.repeat(500), durationMs: 1, truncatedChars: 0 }, 100).truncatedChars).toBe(400);
  });
});
