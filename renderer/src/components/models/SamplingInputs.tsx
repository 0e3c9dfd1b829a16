/** The playground's sampling settings: max tokens, temperature, top-p, top-k, seed, provider, threads, stop sequences, alternatives. */
import type { SamplingSettings } from './playground-request';

interface SamplingInputsProps {
  settings: SamplingSettings;
  /** `field`: the setting checked as it is typed (its class marks it invalid until it is valid). */
  update(patch: Partial<SamplingSettings>, field?: string): void;
  invalid(field: string): string | undefined;
}

/** The settings typed as numbers. */
type NumberSetting = 'maxTokens' | 'temperature' | 'topP' | 'topK' | 'alternatives';
/** The settings typed as digits, empty for the default. */
type DigitsSetting = 'seed' | 'threads';

export function SamplingInputs({ settings: s, update, invalid }: SamplingInputsProps) {
  const field = { settings: s, update, invalid };
  return (
    <>
      <NumberField {...field} setting="maxTokens" label="max tokens" />
      <NumberField {...field} setting="temperature" label="temperature" step={0.1} />
      <NumberField {...field} setting="topP" label="top-p" step={0.05} />
      <NumberField {...field} setting="topK" label="top-k" title="0: off" />
      <DigitsField {...field} setting="seed" label="seed" placeholder="random" size={10} checked={false} />
      <label>
        provider{' '}
        <select
          value={s.provider}
          onChange={(e) => update({ provider: e.target.value as 'auto' })}
          aria-label="provider"
        >
          <option value="auto">auto</option>
          <option value="cpu">cpu</option>
          <option value="cuda">cuda</option>
        </select>
      </label>
      <DigitsField {...field} setting="threads" label="threads" placeholder="default" size={6} checked />
      <label className="stop-label">
        stop sequences{' '}
        <textarea
          value={s.stop}
          onChange={(e) => update({ stop: e.target.value })}
          rows={1}
          placeholder="one per line"
          aria-label="stop sequences"
        />
      </label>
      <NumberField
        {...field}
        setting="alternatives"
        label="alternatives"
        min={0}
        max={20}
        labelTitle="the most likely tokens shown, with log-probs, at each sampled position (0: none)"
      />
    </>
  );
}

/** A number setting, checked as it is typed. */
function NumberField({
  settings,
  update,
  invalid,
  setting,
  label,
  step,
  min,
  max,
  title,
  labelTitle,
}: SamplingInputsProps & {
  setting: NumberSetting;
  label: string;
  step?: number;
  min?: number;
  max?: number;
  /** The input's tooltip. */
  title?: string;
  /** The label's tooltip. */
  labelTitle?: string;
}) {
  return (
    <label title={labelTitle}>
      {label}{' '}
      <input
        type="number"
        min={min}
        max={max}
        className={invalid(setting)}
        step={step}
        value={settings[setting]}
        onChange={(e) => update({ [setting]: Number(e.target.value) }, setting)}
        aria-label={label}
        title={title}
      />
    </label>
  );
}

/** A setting of digits only (anything else typed is dropped); `checked`: checked as it is typed. */
function DigitsField({
  settings,
  update,
  invalid,
  setting,
  label,
  placeholder,
  size,
  checked,
}: SamplingInputsProps & {
  setting: DigitsSetting;
  label: string;
  placeholder: string;
  size: number;
  checked: boolean;
}) {
  return (
    <label>
      {label}{' '}
      <input
        value={settings[setting]}
        placeholder={placeholder}
        className={checked ? invalid(setting) : undefined}
        onChange={(e) => update({ [setting]: e.target.value.replace(/\D/g, '') }, checked ? setting : undefined)}
        size={size}
        aria-label={label}
      />
    </label>
  );
}
