/**
 * Start a training run: the stage, a preset's complete default config (as `t1lab train init-config`) in an
 * editor validated as you type (each error names its key, as the CLI does), the CLI's overrides, and for
 * PPO the ablation cells of issue 13 as one-click edits of the config.
 */
import { useEffect, useRef, useState } from 'react';
import { getLabApi } from '../../lab/api';
import { useTraining } from '../../stores/training';

type Stage = 'lm' | 'sft' | 'ppo';
const CHECK_DELAY_MS = 300;

/** The ablation switches of issue 13 (`[ppo]` keys), each a cell's setting. */
export const ABLATIONS: { key: string; values: string[] }[] = [
  { key: 'reward', values: ['dense', 'fraction', 'binary'] },
  { key: 'tito', values: ['exact', 'retokenize'] },
  { key: 'r3', values: ['on', 'off'] },
  { key: 'tis', values: ['on', 'off'] },
  { key: 'advantage', values: ['gae', 'group'] },
];

/** Set `key = "value"` in a TOML section (added at the section's end, or with the section, when missing). */
export function setTomlKey(toml: string, section: string, key: string, value: string): string {
  const lines = toml.split('\n');
  const head = lines.findIndex((l) => l.trim() === `[${section}]`);
  const assignment = `${key} = "${value}"`;
  if (head < 0) return `${toml.replace(/\n*$/, '\n')}\n[${section}]\n${assignment}\n`;
  let end = lines.findIndex((l, i) => i > head && /^\s*\[/.test(l));
  if (end < 0) end = lines.length;
  const at = lines.findIndex((l, i) => i > head && i < end && new RegExp(`^\\s*${key}\\s*=`).test(l));
  if (at >= 0) lines[at] = assignment;
  else {
    let last = end;
    while (last > head + 1 && !lines[last - 1]!.trim()) last--;
    lines.splice(last, 0, assignment);
  }
  return lines.join('\n');
}

function numberOrUndefined(s: string): number | undefined {
  return s.trim() === '' ? undefined : Number(s);
}

/**
 * `onStarted` runs as soon as the trainer took the run, before the store lists and selects it (that waits on
 * the run's series, rollouts and checkpoints): the page closes the form, so no selected new run is ever shown
 * under a form that is still open.
 */
export function NewRunForm({ onStarted }: { onStarted?: (runId: string) => void } = {}) {
  const { start, starting } = useTraining();
  const [stage, setStage] = useState<Stage>('lm');
  const [preset, setPreset] = useState<'nano' | 'micro'>('nano');
  const [toml, setToml] = useState('');
  const [loadError, setLoadError] = useState<string | null>(null);
  const [model, setModel] = useState('');
  const [data, setData] = useState('');
  const [steps, setSteps] = useState('');
  const [seed, setSeed] = useState('');
  const [every, setEvery] = useState('');
  const [errors, setErrors] = useState<{ key: string; message: string }[]>([]);
  const checkSeq = useRef(0);

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

  const overrides = {
    ...(model.trim() ? { model: model.trim() } : {}),
    ...(data.trim() ? { data: data.trim() } : {}),
    ...(numberOrUndefined(steps) ? { steps: numberOrUndefined(steps) } : {}),
    ...(numberOrUndefined(seed) !== undefined ? { seed: numberOrUndefined(seed) } : {}),
    ...(numberOrUndefined(every) ? { checkpointEvery: numberOrUndefined(every) } : {}),
  };
  const overridesKey = JSON.stringify(overrides);

  // Validate as the trainer will, once typing rests.
  useEffect(() => {
    if (!toml) return;
    const seq = ++checkSeq.current;
    const timer = setTimeout(() => {
      getLabApi()
        .methods['training.checkConfig']({ stage, configToml: toml, overrides: JSON.parse(overridesKey) as Record<string, unknown> })
        .then(
          (r) => seq === checkSeq.current && setErrors(r.errors),
          (e: Error) => seq === checkSeq.current && setErrors([{ key: '(overrides)', message: e.message }]),
        );
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [toml, stage, overridesKey]);

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
        {stage === 'ppo' && (
          <span className="ablations" data-testid="ablations">
            ablation cells:
            {ABLATIONS.map((a) => (
              <select key={a.key} defaultValue="" onChange={(e) => e.target.value && setToml(setTomlKey(toml, 'ppo', a.key, e.target.value))} aria-label={a.key}>
                <option value="">{a.key}</option>
                {a.values.map((v) => (
                  <option key={v} value={v}>
                    {a.key} = {v}
                  </option>
                ))}
              </select>
            ))}
          </span>
        )}
      </div>
      <div className="toolbar overrides">
        <label>
          model <input value={model} onChange={(e) => setModel(e.target.value)} placeholder="config's" name="model" size={24} />
        </label>
        <label>
          data <input value={data} onChange={(e) => setData(e.target.value)} placeholder="config's" name="data" size={24} />
        </label>
        <label>
          steps <input value={steps} onChange={(e) => setSteps(e.target.value.replace(/\D/g, ''))} name="steps" size={6} />
        </label>
        <label>
          seed <input value={seed} onChange={(e) => setSeed(e.target.value.replace(/\D/g, ''))} name="seed" size={6} />
        </label>
        <label>
          checkpoint every <input value={every} onChange={(e) => setEvery(e.target.value.replace(/\D/g, ''))} name="checkpointEvery" size={6} />
        </label>
      </div>
      {loadError && <div className="error">{loadError}</div>}
      <textarea value={toml} onChange={(e) => setToml(e.target.value)} rows={12} spellCheck={false} aria-label="run config (TOML)" name="config" />
      {errors.length > 0 ? (
        <ul className="config-errors" data-testid="config-errors">
          {errors.map((e, i) => (
            <li key={i}>
              <code>{e.key}</code>: {e.message}
            </li>
          ))}
        </ul>
      ) : (
        toml && <span className="ok small" data-testid="config-ok">config valid</span>
      )}
      <div className="toolbar">
        <button type="submit" disabled={starting || !toml || errors.length > 0} data-testid="start-training">
          {starting ? 'Starting…' : 'Start training'}
        </button>
      </div>
    </form>
  );
}
