/**
 * What a failing assertion said, readably: the lines that explain the failure (pytest's `E ...` lines, the
 * exception at the end of a traceback, else the last meaningful lines), with the full output one click away.
 * Never just the first line ("Traceback (most recent call last):") nor the whole traceback as one paragraph.
 */

/** Lines that carry no information about why something failed. */
const NOISE = [/^Traceback \(most recent call last\):$/, /^[-=_]{3,}.*$/, /^\s*$/, /^\s*\^+\s*$/, /^During handling of the above exception/];
const MAX_KEY_LINES = 4;

export function keyLines(message: string): string[] {
  const lines = message.replace(/\r\n?/g, '\n').split('\n');
  // pytest: the `E   ...` lines are the assertion and its explanation.
  const pytest = lines.filter((l) => /^E\s{1,}/.test(l)).map((l) => l.replace(/^E\s+/, ''));
  if (pytest.length) return pytest.slice(0, MAX_KEY_LINES);
  const meaningful = lines.filter((l) => !NOISE.some((n) => n.test(l)));
  if (meaningful.length === 0) return [];
  // A traceback ends with the exception: keep it and the source line just above it.
  return meaningful.slice(-MAX_KEY_LINES);
}

export function FailureMessage({ message }: { message: string }) {
  const key = keyLines(message);
  const whole = message.trim();
  const shown = key.join('\n');
  if (!whole) return null;
  return (
    <div className="failure" data-testid="failure-message">
      <pre className="failure-key">{shown || whole.split('\n').at(-1)}</pre>
      {whole !== shown && (
        <details className="failure-full">
          <summary>full output ({whole.split('\n').length} lines)</summary>
          <pre>{whole}</pre>
        </details>
      )}
    </div>
  );
}
