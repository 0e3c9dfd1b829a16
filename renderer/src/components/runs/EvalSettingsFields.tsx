/**
 * The settings of an evaluation beside its suite and policy: the Runs form and a checkpoint's Evaluate share
 * them. The common ones are in view; the rest ("more settings") open by themselves when one holds an error.
 */
import { FieldError } from '../common/FieldError';
import { SETTING_LABELS, type EvalSetting, type EvalSettingsDraft } from './eval-settings';

export interface SettingFailure {
  field: string;
  message: string;
}

interface Props {
  draft: EvalSettingsDraft;
  onChange(setting: EvalSetting, value: string): void;
  failure: SettingFailure | null;
  onDismiss(): void;
  /** Input names are `${prefix}-kebab-name` when given (several forms on one page), else the setting's name. */
  namePrefix?: string;
}

const MAIN: EvalSetting[] = ['attempts', 'concurrency', 'maxTurns', 'temperature', 'maxTokens', 'agentTimeout', 'seed'];
const MORE: EvalSetting[] = [
  'protocol',
  'contextStrategy',
  'observationChars',
  'contextWindow',
  'episodeDeadline',
  'apiKeyEnv',
  'priceInput',
  'priceOutput',
  'priceCached',
  'out',
];

const NUMBER_INPUT: Partial<Record<EvalSetting, { min?: number; max?: number; step?: string }>> = {
  attempts: { min: 1, max: 100 },
  concurrency: { min: 1, max: 256 },
  maxTurns: { min: 1 },
  temperature: { min: 0, max: 2, step: 'any' },
  maxTokens: { min: 1 },
  agentTimeout: { min: 1, step: 'any' },
  seed: {},
  observationChars: { min: 1 },
  contextWindow: { min: 1 },
  episodeDeadline: { min: 1 },
  priceInput: { min: 0, step: 'any' },
  priceOutput: { min: 0, step: 'any' },
  priceCached: { min: 0, step: 'any' },
};

/** What an empty field means, shown as its placeholder. */
const PLACEHOLDERS: Partial<Record<EvalSetting, string>> = {
  concurrency: 'cores',
  maxTokens: 'policy default',
  agentTimeout: "task's",
  seed: 'random',
  contextWindow: "model's",
  episodeDeadline: 'timeouts + 120',
  apiKeyEnv: 'OPENAI_API_KEY',
  priceCached: 'input price',
  out: 'new folder under runs/',
};

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export function EvalSettingsFields({ draft, onChange, failure, onDismiss, namePrefix }: Props) {
  const field = (setting: EvalSetting) => {
    const invalid = failure?.field === setting;
    const name = namePrefix ? `${namePrefix}-${kebab(setting)}` : setting;
    const label = SETTING_LABELS[setting].toLowerCase();
    const input =
      setting === 'protocol' ? (
        <select
          name={name}
          value={draft.protocol}
          onChange={(e) => onChange(setting, e.target.value)}
          aria-invalid={invalid}
        >
          <option value="">policy default</option>
          <option value="hermes">hermes</option>
          <option value="terminus">terminus</option>
          <option value="tools">tools</option>
        </select>
      ) : setting === 'contextStrategy' ? (
        <select
          name={name}
          value={draft.contextStrategy}
          onChange={(e) => onChange(setting, e.target.value)}
          aria-invalid={invalid}
        >
          <option value="drop-oldest">drop-oldest</option>
          <option value="stop">stop</option>
        </select>
      ) : (
        <input
          name={name}
          value={draft[setting]}
          onChange={(e) => onChange(setting, e.target.value)}
          placeholder={PLACEHOLDERS[setting]}
          aria-invalid={invalid}
          {...(NUMBER_INPUT[setting]
            ? { type: 'number', ...NUMBER_INPUT[setting] }
            : { size: setting === 'out' ? 24 : 14 })}
        />
      );
    return (
      <div key={setting} className={invalid ? 'field invalid' : 'field'}>
        <label>
          {label} {input}
        </label>
        {invalid && <FieldError message={failure.message} onDismiss={onDismiss} testId={`error-${setting}`} />}
      </div>
    );
  };
  const moreHasError = MORE.some((s) => s === failure?.field);
  return (
    <>
      {MAIN.map(field)}
      <details className="eval-more-settings" data-testid="eval-more-settings" open={moreHasError || undefined}>
        <summary>more settings</summary>
        <div className="eval-more-fields">{MORE.map(field)}</div>
      </details>
    </>
  );
}
