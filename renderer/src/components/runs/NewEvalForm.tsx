/**
 * Start an evaluation: suite, policy and every setting `t1lab eval` takes, from the same defaults. A failure
 * is shown next to the field it concerns and stays until that input changes or the user dismisses it; a
 * checkpoint whose window cannot hold the suite's prompts is reported before the run starts, with "Start anyway".
 */
import { useEffect, useState } from 'react';
import type { EvalRequest } from '../../../../electron/domain/runs';
import { userError, type UserError } from '../../lab/errors';
import { useRuns } from '../../stores/runs';
import { useEvalDraft } from '../../stores/eval-draft';
import { FieldError } from '../common/FieldError';
import { DEFAULT_EVAL_SETTINGS, evalSettingsRequest, SETTING_LABELS, SETTING_PATHS, settingOfPath, type EvalSetting, type EvalSettingsDraft } from './eval-settings';
import { EvalSettingsFields } from './EvalSettingsFields';

type Field = 'suite' | 'policy' | EvalSetting;

const LABELS: Record<string, string> = {
  suite: 'The suite',
  policy: 'The policy',
  harness: 'Max turns',
  ...Object.fromEntries((Object.keys(SETTING_PATHS) as EvalSetting[]).map((k) => [SETTING_PATHS[k], SETTING_LABELS[k]])),
};

/** Which field a host message is about: the schema path or its details when given, else what it names. */
export function fieldOf(error: UserError, request: { suite: string; policy: string }): Field {
  const setting = settingOfPath(error.field);
  if (setting) return setting;
  if (error.field === 'suite' || error.field === 'policy') return error.field;
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
  const [settings, setSettings] = useState<EvalSettingsDraft>(DEFAULT_EVAL_SETTINGS);
  const [failure, setFailure] = useState<{ field: Field; message: string; unfit: boolean } | null>(null);
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
