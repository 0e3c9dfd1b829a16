/**
 * Start a training run: the stage, a preset's complete default config (as `t1lab train init-config`) in an
 * editor validated as you type (each error names its key, as the CLI does), the CLI's overrides, and for
 * PPO the ablation cells of issue 13 as one-click edits of the config.
 */
import { useEffect, useRef, useState } from 'react';
import { getLabApi } from '../../lab/api';
import { useTraining } from '../../stores/training';
import { ABLATIONS, runOverrides, setTomlKey, type OverrideFields } from './run-config-edit';

type Stage = 'lm' | 'sft' | 'ppo';
const CHECK_DELAY_MS = 300;

/**
 * `onStarted` runs as soon as the trainer took the run, before the store lists and selects it (that waits on
 * the run's series, rollouts and checkpoints): the page closes the form, so no selected new run is ever shown
 * under a form that is still open.
 */
export function NewRunForm({ onStarted }: { onStarted?: (runId: string) => void } = {}) {
  const { start, starting } = useTraining();
  const [stage, setStage] = useState<Stage>('lm');
  const [preset, setPreset] = useState<'nano' | 'micro'>('nano');
  const { toml, setToml, loadError } = useDefaultConfig(stage, preset);
  const [fields, setFields] = useState<OverrideFields>({ model: '', data: '', steps: '', seed: '', every: '' });
  const overrides = runOverrides(fields);
  const errors = useConfigCheck(toml, stage, JSON.stringify(overrides));

  return (
    <form
      className="run-control"
      data-testid="new-training-run"
      onSubmit={(e) => {
        e.preventDefault();
        void start({ stage, configToml: toml, overrides }, onStarted);
      }}
    >
      <div className="toolbar">
        <label>
          stage{' '}
          <select value={stage} onChange={(e) => setStage(e.target.value as Stage)} name="stage">
            <option value="lm">lm (pretraining)</option>
            <option value="sft">sft (warm start)</option>
            <option value="ppo">ppo</option>
          </select>
        </label>
        <label>
          preset{' '}
          <select value={preset} onChange={(e) => setPreset(e.target.value as 'nano' | 'micro')} name="preset">
            <option value="nano">nano recipe</option>
            <option value="micro">micro recipe</option>
          </select>
        </label>
        {stage === 'ppo' && <AblationCells onSet={(key, value) => setToml(setTomlKey(toml, 'ppo', key, value))} />}
      </div>
      <OverrideInputs fields={fields} onChange={(f) => setFields({ ...fields, ...f })} />
      {loadError && <div className="error">{loadError}</div>}
      <textarea
        value={toml}
        onChange={(e) => setToml(e.target.value)}
        rows={12}
        spellCheck={false}
        aria-label="run config (TOML)"
        name="config"
      />
      {errors.length > 0 ? (
        <ul className="config-errors" data-testid="config-errors">
          {errors.map((e, i) => (
            <li key={i}>
              <code>{e.key}</code>: {e.message}
            </li>
          ))}
        </ul>
      ) : (
        toml && (
          <span className="ok small" data-testid="config-ok">
            config valid
          </span>
        )
      )}
      <div className="toolbar">
        <button type="submit" disabled={starting || !toml || errors.length > 0} data-testid="start-training">
          {starting ? 'Starting…' : 'Start training'}
        </button>
      </div>
    </form>
  );
}

/** The complete default config of a stage and preset, as `t1lab train init-config` writes it, loaded again when either changes. */
function useDefaultConfig(stage: Stage, preset: 'nano' | 'micro') {
  const [toml, setToml] = useState('');
  const [loadError, setLoadError] = useState<string | null>(null);
  useEffect(() => {
    let stale = false;
    setLoadError(null);
    getLabApi()
      .methods['training.defaultConfig']({ stage, preset })
      .then(
        ({ toml: text }) => !stale && setToml(text),
        (e: Error) => !stale && setLoadError(e.message),
      );
    return () => {
      stale = true;
    };
  }, [stage, preset]);
  return { toml, setToml, loadError };
}

/** The config's problems as the trainer will judge them (each naming its key), checked once typing rests. */
function useConfigCheck(toml: string, stage: Stage, overridesKey: string): { key: string; message: string }[] {
  const [errors, setErrors] = useState<{ key: string; message: string }[]>([]);
  const checkSeq = useRef(0);
  useEffect(() => {
    if (!toml) return;
    const seq = ++checkSeq.current;
    const timer = setTimeout(() => {
      getLabApi()
        .methods['training.checkConfig']({
          stage,
          configToml: toml,
          overrides: JSON.parse(overridesKey) as Record<string, unknown>,
        })
        .then(
          (r) => seq === checkSeq.current && setErrors(r.errors),
          (e: Error) => seq === checkSeq.current && setErrors([{ key: '(overrides)', message: e.message }]),
        );
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [toml, stage, overridesKey]);
  return errors;
}

/** PPO's ablation cells, each a one-click edit of its `[ppo]` key. */
function AblationCells({ onSet }: { onSet(key: string, value: string): void }) {
  return (
    <span className="ablations" data-testid="ablations">
      ablation cells:
      {ABLATIONS.map((a) => (
        <select
          key={a.key}
          defaultValue=""
          onChange={(e) => e.target.value && onSet(a.key, e.target.value)}
          aria-label={a.key}
        >
          <option value="">{a.key}</option>
          {a.values.map((v) => (
            <option key={v} value={v}>
              {a.key} = {v}
            </option>
          ))}
        </select>
      ))}
    </span>
  );
}

/** The CLI's overrides: --model, --data, --steps, --seed, --checkpoint-every. */
function OverrideInputs({ fields, onChange }: { fields: OverrideFields; onChange(f: Partial<OverrideFields>): void }) {
  const digits = (v: string) => v.replace(/\D/g, '');
  return (
    <div className="toolbar overrides">
      <label>
        model{' '}
        <input
          value={fields.model}
          onChange={(e) => onChange({ model: e.target.value })}
          placeholder="config's"
          name="model"
          size={24}
        />
      </label>
      <label>
        data{' '}
        <input
          value={fields.data}
          onChange={(e) => onChange({ data: e.target.value })}
          placeholder="config's"
          name="data"
          size={24}
        />
      </label>
      <label>
        steps{' '}
        <input
          value={fields.steps}
          onChange={(e) => onChange({ steps: digits(e.target.value) })}
          name="steps"
          size={6}
        />
      </label>
      <label>
        seed{' '}
        <input value={fields.seed} onChange={(e) => onChange({ seed: digits(e.target.value) })} name="seed" size={6} />
      </label>
      <label>
        checkpoint every{' '}
        <input
          value={fields.every}
          onChange={(e) => onChange({ every: digits(e.target.value) })}
          name="checkpointEvery"
          size={6}
        />
      </label>
    </div>
  );
}
