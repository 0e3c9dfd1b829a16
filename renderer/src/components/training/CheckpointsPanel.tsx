/**
 * The primary run's checkpoints: "evaluate" starts an eval run (the Runs service) on a chosen suite with
 * that checkpoint as the `onnx:` policy, with the same settings and defaults as the Runs form and `t1lab eval`,
 * and shows its progress; "compare" opens the compare view on two eval runs.
 */
import { useEffect, useState } from 'react';
import type { RunListing, RunProgress } from '../../../../electron/domain/runs';
import type { TrainingCheckpoint } from '../../../../electron/domain/training-view';
import { getLabApi } from '../../lab/api';
import { useTraining } from '../../stores/training';
import { useNav } from '../../stores/nav';
import { userError } from '../../lab/errors';
import {
  DEFAULT_EVAL_SETTINGS,
  evalSettingsRequest,
  SETTING_LABELS,
  SETTING_PATHS,
  settingOfPath,
  type EvalSetting,
  type EvalSettingsDraft,
} from '../runs/eval-settings';
import { EvalSettingsFields, type SettingFailure } from '../runs/EvalSettingsFields';

const LABELS = Object.fromEntries(
  (Object.keys(SETTING_PATHS) as EvalSetting[]).map((k) => [SETTING_PATHS[k], SETTING_LABELS[k]]),
);

const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);

export function CheckpointsPanel() {
  const { checkpoints, refreshCheckpoints } = useTraining();
  const [suite, setSuite] = useState('tasks/examples');
  const [settings, setSettings] = useState<EvalSettingsDraft>(DEFAULT_EVAL_SETTINGS);
  const [failure, setFailure] = useState<SettingFailure | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { evals, progress, setProgress, refreshEvals } = useEvalRuns(refreshCheckpoints, setError);

  const evaluate = async (path: string) => {
    setError(null);
    setFailure(null);
    try {
      const { runId } = await getLabApi().methods['runs.start'](
        { suite, policy: `onnx:${path}`, ...evalSettingsRequest(settings) },
        { timeoutMs: 180_000 },
      );
      setProgress((all) => ({
        ...all,
        [runId]: {
          runId,
          runDir: '',
          state: 'running',
          total: 0,
          done: 0,
          resolved: 0,
          cut: 0,
          running: [],
          message: null,
        },
      }));
      await Promise.all([refreshCheckpoints(), refreshEvals()]);
    } catch (e) {
      const problem = userError(e, LABELS);
      const setting = settingOfPath(problem.field);
      if (setting) setFailure({ field: setting, message: problem.message });
      else setError(problem.message);
    }
  };

  return (
    <section className="checkpoints-panel" data-testid="checkpoints-panel">
      <div className="toolbar">
        <label>
          suite <input value={suite} onChange={(e) => setSuite(e.target.value)} name="eval-suite" size={28} />
        </label>
        <EvalSettingsFields
          draft={settings}
          onChange={(setting, value) => {
            setSettings((d) => ({ ...d, [setting]: value }));
            if (failure?.field === setting) setFailure(null);
          }}
          failure={failure}
          onDismiss={() => setFailure(null)}
          namePrefix="eval"
        />
      </div>
      {error && (
        <div className="error" role="alert">
          {error}
        </div>
      )}
      {!checkpoints.length ? (
        <p className="muted">No checkpoints yet.</p>
      ) : (
        <table className="grid" data-testid="training-checkpoints">
          <thead>
            <tr>
              <th>checkpoint</th>
              <th>step</th>
              <th>eval loss</th>
              <th>evaluations</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {checkpoints.map((c) => (
              <CheckpointRow key={c.path} checkpoint={c} progress={progress} onEvaluate={() => void evaluate(c.path)} />
            ))}
          </tbody>
        </table>
      )}
      <ComparePicker evals={evals} defaults={defaultPair(checkpoints)} />
    </section>
  );
}

/** The eval runs (for the compare picker) and their live progress; a run that ends lists the checkpoints and runs again. */
function useEvalRuns(refreshCheckpoints: () => Promise<void>, setError: (message: string) => void) {
  const [progress, setProgress] = useState<Record<string, RunProgress>>({});
  const [evals, setEvals] = useState<RunListing[]>([]);
  const refreshEvals = () =>
    getLabApi()
      .methods['runs.list']({})
      .then(
        (runs) => setEvals(runs.filter((r) => r.kind === 'eval')),
        (e: Error) => setError(e.message),
      );
  useEffect(() => {
    void refreshEvals();
    return getLabApi().on('runs.progress', (p) => {
      setProgress((all) => ({ ...all, [p.runId]: p }));
      if (p.state !== 'running') {
        void refreshCheckpoints();
        void refreshEvals();
      }
    });
  }, [refreshCheckpoints]);
  return { evals, progress, setProgress, refreshEvals };
}

/** The default pair to compare: the first and the last of the checkpoints' finished evaluations. */
function defaultPair(checkpoints: readonly Pick<TrainingCheckpoint, 'evalRuns'>[]): { a: string; b: string } {
  const finished = checkpoints.flatMap((c) => c.evalRuns.filter((r) => r.state === 'complete'));
  return { a: finished[0]?.runId || '', b: finished[finished.length - 1]?.runId || '' };
}

/** A checkpoint: its name (best marked), step, eval loss, its evaluations (live while running), and Evaluate. */
function CheckpointRow({
  checkpoint: c,
  progress,
  onEvaluate,
}: {
  checkpoint: TrainingCheckpoint;
  progress: Record<string, RunProgress>;
  onEvaluate(): void;
}) {
  return (
    <tr data-testid="checkpoint-row" data-step={c.step ?? ''} title={c.path}>
      <td>
        {c.name} {c.best && <span className="badge verdict-ok">best</span>}
      </td>
      <td>{c.step ?? '—'}</td>
      <td>{c.evalLoss === null ? '—' : c.evalLoss.toFixed(4)}</td>
      <td>
        {c.evalRuns.map((r) => {
          const p = progress[r.runId];
          return (
            <div
              key={r.runId}
              className="small"
              data-testid="checkpoint-eval"
              data-run={r.runId}
              data-state={p?.state === 'running' ? 'running' : r.state}
            >
              {r.runId}:{' '}
              {p?.state === 'running' ? `running ${p.done}/${p.total}` : `${pct(r.resolvedRate)} resolved (${r.state})`}
            </div>
          );
        })}
      </td>
      <td>
        <button onClick={onEvaluate} data-testid="evaluate">
          Evaluate
        </button>
      </td>
    </tr>
  );
}

/** Two eval runs (by default the first and last checkpoint's) and the button that opens the compare view on them. */
function ComparePicker({ evals, defaults }: { evals: RunListing[]; defaults: { a: string; b: string } }) {
  const { link } = useNav();
  const [pair, setPair] = useState<{ a: string; b: string }>({ a: '', b: '' });
  const a = pair.a || defaults.a;
  const b = pair.b || defaults.b;
  const options = evals.map((r) => (
    <option key={r.id} value={r.id}>
      {r.id} · {r.policy.split('/').slice(-2).join('/')} · {pct(r.resolvedRate)}
    </option>
  ));
  return (
    <div className="toolbar compare-bar">
      compare
      <select
        value={a}
        onChange={(e) => setPair({ a: e.target.value, b })}
        data-testid="compare-a"
        aria-label="eval run A"
      >
        <option value="">eval run A</option>
        {options}
      </select>
      <select
        value={b}
        onChange={(e) => setPair({ a, b: e.target.value })}
        data-testid="compare-b"
        aria-label="eval run B"
      >
        <option value="">eval run B</option>
        {options}
      </select>
      <button
        disabled={!a || !b || a === b}
        onClick={() => link('compare', [a, b])}
        data-testid="compare"
        title="opens the compare view: paired tests, forest plot, task diff"
      >
        Compare
      </button>
    </div>
  );
}
