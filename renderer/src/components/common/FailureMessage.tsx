/**
 * What a failing assertion said, readably: the lines that explain the failure (pytest's `E ...` lines, the
 * exception at the end of a traceback, else the last meaningful lines), with the full output one click away.
 * Never just the first line ("Traceback (most recent call last):") nor the whole traceback as one paragraph.
 */

import { keyLines } from './failure-lines';

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
