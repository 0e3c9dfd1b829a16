/** The `t1lab eval` command line that repeats a run, with a copy button: a page run is a shell run too. */
import { useState } from 'react';
import { evalCommandLine } from '../../../../electron/domain/eval-command';
import type { EvalRunConfig } from '../../../../electron/domain/runs';

export function EvalCommand({ config }: { config: EvalRunConfig }) {
  const line = evalCommandLine(config);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = () =>
    navigator.clipboard.writeText(line).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  return (
    <div className="eval-command" data-testid="eval-command">
      <div className="eval-command-head">
        <span className="muted">the same run from a shell</span>
        <button type="button" onClick={() => void copy()} data-testid="copy-eval-command">
          Copy
        </button>
        {copied && (
          <span className="muted small">
            {copied === 'yes' ? 'copied' : 'the browser refused the clipboard: select the line'}
          </span>
        )}
      </div>
      <code data-testid="eval-command-line">{line}</code>
    </div>
  );
}
