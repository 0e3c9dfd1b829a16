/**
 * Start an evaluation: suite, policy and every setting `t1lab eval` takes, from the same defaults. A failure
 * is shown next to the field it concerns and stays until that input changes or the user dismisses it; a
 * checkpoint whose window cannot hold the suite's prompts is reported before the run starts, with "Start anyway".
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { EvalRequest } from '../../../../electron/domain/runs';
import { userError, type UserError } from '../../lab/errors';
import { useRuns } from '../../stores/runs';
import { useEvalDraft } from '../../stores/eval-draft';
import { FieldError } from '../common/FieldError';
import {
  DEFAULT_EVAL_SETTINGS,
  evalSettingsRequest,
  SETTING_LABELS,
  SETTING_PATHS,
  settingOfPath,
  type EvalSetting,
  type EvalSettingsDraft,
} from './eval-settings';
import { EvalSettingsFields } from './EvalSettingsFields';

type Field = 'suite' | 'policy' | EvalSetting;

const LABELS: Record<string, string> = {
  suite: 'The suite',
  policy: 'The policy',
  harness: 'Max turns',
  ...Object.fromEntries(
    (Object.keys(SETTING_PATHS) as EvalSetting[]).map((k) => [SETTING_PATHS[k], SETTING_LABELS[k]]),
  ),
};

/** Which field a host message is about: the schema path or its details when given, else what it names. */
export function fieldOf(error: UserError, request: { suite: string; policy: string }): Field {
  const setting = settingOfPath(error.field);
  if (setting) return setting;
  if (error.field === 'suite' || error.field === 'policy') return error.field;
  const m = error.message;
  if (
    /polic|checkpoint|replay|onnx|openai/i.test(m) ||
    (request.policy.length > 3 && m.includes(request.policy.replace(/^[a-z]+:/, '')))
  )
    return 'policy';
  return 'suite';
}

export function NewEvalForm() {
  const { start, starting } = useRuns();
  const { suite, setSuite, only, setOnly } = useDraftSuite();
  const [policy, setPolicy] = useState('oracle');
  const [settings, setSettings] = useState<EvalSettingsDraft>(DEFAULT_EVAL_SETTINGS);
  const [failure, setFailure] = useState<Failure | null>(null);
  const edited = (field: Field) => {
    if (failure?.field === field) setFailure(null);
  };

  const submit = async (checkFit: boolean) => {
    const request: EvalRequest = {
      suite: suite.trim(),
      policy: policy.trim(),
      ...evalSettingsRequest(settings),
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
      <SuiteField
        suite={suite}
        onSuite={(value) => {
          setSuite(value);
          setOnly(null);
          edited('suite');
        }}
        only={only}
        onWholeSuite={() => setOnly(null)}
        invalid={failure?.field === 'suite'}
        error={errorFor('suite')}
      />
      <PolicyField
        policy={policy}
        onPolicy={(value) => {
          setPolicy(value);
          edited('policy');
        }}
        invalid={failure?.field === 'policy'}
        error={errorFor('policy')}
        onStartAnyway={failure?.field === 'policy' && failure.unfit ? () => void submit(false) : null}
      />
      <EvalSettingsFields
        draft={settings}
        onChange={(setting, value) => {
          setSettings((d) => ({ ...d, [setting]: value }));
          edited(setting);
        }}
        failure={failure}
        onDismiss={() => setFailure(null)}
      />
      <button type="submit" disabled={starting || !suite.trim() || !policy.trim()}>
        {starting ? 'Starting…' : 'Start evaluation'}
      </button>
    </form>
  );
}

type Failure = { field: Field; message: string; unfit: boolean };

/** The suite (and the tasks it is narrowed to) that another page handed over, followed each time it hands one again. */
function useDraftSuite() {
  const draft = useEvalDraft();
  const [suite, setSuite] = useState(draft.suite);
  const [only, setOnly] = useState<string[] | null>(draft.only);
  useEffect(() => {
    setSuite(draft.suite);
    setOnly(draft.only);
  }, [draft.version, draft.suite, draft.only]);
  return { suite, setSuite, only, setOnly };
}

interface SuiteFieldProps {
  suite: string;
  onSuite(value: string): void;
  only: string[] | null;
  onWholeSuite(): void;
  invalid: boolean;
  error: ReactNode;
}

/** The suite, and the tasks it is narrowed to (a badge that goes back to the whole suite). */
function SuiteField({ suite, onSuite, only, onWholeSuite, invalid, error }: SuiteFieldProps) {
  return (
    <div className={invalid ? 'field invalid' : 'field'}>
      <label>
        suite{' '}
        <input
          value={suite}
          onChange={(e) => onSuite(e.target.value)}
          placeholder="a task folder, a folder of tasks, or a pack"
          name="suite"
          size={28}
          aria-invalid={invalid}
        />
      </label>
      {only && (
        <span className="badge" data-testid="only-tasks">
          only {only.join(', ')}{' '}
          <button type="button" className="dismiss" aria-label="Run the whole suite" onClick={onWholeSuite}>
            ×
          </button>
        </span>
      )}
      {error}
    </div>
  );
}

interface PolicyFieldProps {
  policy: string;
  onPolicy(value: string): void;
  invalid: boolean;
  error: ReactNode;
  /** Offered when the checkpoint's window cannot hold the suite's prompts. */
  onStartAnyway: (() => void) | null;
}

/** The policy spec (the kinds offered as suggestions), and "Start anyway" when the checkpoint does not fit the suite. */
function PolicyField({ policy, onPolicy, invalid, error, onStartAnyway }: PolicyFieldProps) {
  return (
    <div className={invalid ? 'field invalid' : 'field'}>
      <label>
        policy{' '}
        <input
          value={policy}
          onChange={(e) => onPolicy(e.target.value)}
          list="policy-specs"
          name="policy"
          size={32}
          aria-invalid={invalid}
        />
        <datalist id="policy-specs">
          <option value="oracle" />
          <option value="replay:FILE" />
          <option value="openai:http://127.0.0.1:8000/v1#MODEL" />
          <option value="onnx:CHECKPOINT" />
        </datalist>
      </label>
      {error}
      {onStartAnyway && (
        <button type="button" data-testid="start-anyway" onClick={onStartAnyway}>
          Start anyway
        </button>
      )}
    </div>
  );
}
