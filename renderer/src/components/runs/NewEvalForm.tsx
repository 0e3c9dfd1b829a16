/**
 * Start an evaluation: suite, policy, attempts, concurrency (and the turn limit). A failure is shown next
 * to the field it concerns and stays until that input changes or the user dismisses it; a checkpoint whose
 * window cannot hold the suite's prompts is reported before the run starts, with "Start anyway".
 */
import { useEffect, useState } from 'react';
import type { EvalRequest } from '../../../../electron/domain/runs';
import { userError, type UserError } from '../../lab/errors';
import { useRuns } from '../../stores/runs';
import { useEvalDraft } from '../../stores/eval-draft';
import { FieldError } from '../common/FieldError';

type Field = 'suite' | 'policy' | 'attempts' | 'concurrency' | 'maxTurns';

const LABELS: Record<string, string> = {
  suite: 'The suite',
  policy: 'The policy',
  attempts: 'Attempts',
  concurrency: 'Concurrency',
  'harness.maxTurns': 'Max turns',
  harness: 'Max turns',
};

/** Which field a host message is about: the schema path or its details when given, else what it names. */
export function fieldOf(error: UserError, request: { suite: string; policy: string }): Field {
  if (error.field === 'harness.maxTurns' || error.field === 'harness') return 'maxTurns';
  if (error.field && ['suite', 'policy', 'attempts', 'concurrency'].includes(error.field)) return error.field as Field;
  const m = error.message;
  if (/polic|checkpoint|replay|onnx|openai/i.test(m) || (request.policy.length > 3 && m.includes(request.policy.replace(/^[a-z]+:/, '')))) return 'policy';
  return 'suite';
}

export function NewEvalForm() {
  const { start, starting } = useRuns();
  const draft = useEvalDraft();
  const [suite, setSuite] = useState(draft.suite);
  const [only, setOnly] = useState<string[] | null>(draft.only);
  useEffect(() => {
    setSuite(draft.suite);
    setOnly(draft.only);
  }, [draft.version, draft.suite, draft.only]);
  const [policy, setPolicy] = useState('oracle');
  const [attempts, setAttempts] = useState(1);
  const [concurrency, setConcurrency] = useState<number | ''>('');
  const [maxTurns, setMaxTurns] = useState(300);
  const [failure, setFailure] = useState<{ field: Field; message: string; unfit: boolean } | null>(null);
  const edited = (field: Field) => {
    if (failure?.field === field) setFailure(null);
  };

  const submit = async (checkFit: boolean) => {
    const request: EvalRequest = {
      suite: suite.trim(),
      policy: policy.trim(),
      attempts,
      ...(concurrency === '' ? {} : { concurrency }),
      harness: { maxTurns, contextStrategy: 'drop-oldest', observationChars: 10_000 },
      ...(checkFit ? { checkFit: true } : {}),
      ...(only ? { only } : {}),
    };
    setFailure(null);
    const result = await start(request);
    if ('error' in result) {
      const e = userError(result.error, LABELS);
      const details = (result.error as { details?: { unfit?: unknown } }).details;
      setFailure({ field: fieldOf(e, request), message: e.message, unfit: Array.isArray(details?.unfit) });
    }
  };

  const errorFor = (field: Field) =>
    failure?.field === field ? (
      <FieldError message={failure.message} onDismiss={() => setFailure(null)} testId={`error-${field}`} />
    ) : null;

  return (
    <form
      className="new-eval"
      data-testid="new-eval"
      onSubmit={(e) => {
        e.preventDefault();
        void submit(true);
      }}
    >
      <div className={failure?.field === 'suite' ? 'field invalid' : 'field'}>
        <label>
          suite{' '}
          <input
            value={suite}
            onChange={(e) => {
              setSuite(e.target.value);
              setOnly(null);
              edited('suite');
            }}
            placeholder="a task folder, a folder of tasks, or a pack"
            name="suite"
            size={28}
            aria-invalid={failure?.field === 'suite'}
          />
        </label>
        {only && (
          <span className="badge" data-testid="only-tasks">
            only {only.join(', ')}{' '}
            <button type="button" className="dismiss" aria-label="Run the whole suite" onClick={() => setOnly(null)}>
              ×
            </button>
          </span>
        )}
        {errorFor('suite')}
      </div>
      <div className={failure?.field === 'policy' ? 'field invalid' : 'field'}>
        <label>
          policy{' '}
          <input
            value={policy}
            onChange={(e) => {
              setPolicy(e.target.value);
              edited('policy');
            }}
            list="policy-specs"
            name="policy"
            size={32}
            aria-invalid={failure?.field === 'policy'}
          />
          <datalist id="policy-specs">
            <option value="oracle" />
            <option value="replay:FILE" />
            <option value="openai:http://127.0.0.1:8000/v1#MODEL" />
            <option value="onnx:CHECKPOINT" />
          </datalist>
        </label>
        {errorFor('policy')}
        {failure?.field === 'policy' && failure.unfit && (
          <button type="button" data-testid="start-anyway" onClick={() => void submit(false)}>
            Start anyway
          </button>
        )}
      </div>
      <div className={failure?.field === 'attempts' ? 'field invalid' : 'field'}>
        <label>
          attempts{' '}
          <input
            type="number"
            min={1}
            max={100}
            value={attempts}
            onChange={(e) => {
              setAttempts(Number(e.target.value));
              edited('attempts');
            }}
            name="attempts"
          />
        </label>
        {errorFor('attempts')}
      </div>
      <div className={failure?.field === 'concurrency' ? 'field invalid' : 'field'}>
        <label>
          concurrency{' '}
          <input
            type="number"
            min={1}
            max={256}
            value={concurrency}
            placeholder="cores"
            onChange={(e) => {
              setConcurrency(e.target.value === '' ? '' : Number(e.target.value));
              edited('concurrency');
            }}
            name="concurrency"
          />
        </label>
        {errorFor('concurrency')}
      </div>
      <div className={failure?.field === 'maxTurns' ? 'field invalid' : 'field'}>
        <label>
          max turns{' '}
          <input
            type="number"
            min={1}
            value={maxTurns}
            onChange={(e) => {
              setMaxTurns(Number(e.target.value));
              edited('maxTurns');
            }}
            name="maxTurns"
          />
        </label>
        {errorFor('maxTurns')}
      </div>
      <button type="submit" disabled={starting || !suite.trim() || !policy.trim()}>
        {starting ? 'Starting…' : 'Start evaluation'}
      </button>
    </form>
  );
}
