/**
 * The primary run's checkpoints: "evaluate" starts an eval run (the Runs service) on a chosen suite with
 * that checkpoint as the `onnx:` policy, with the same settings and defaults as the Runs form and `t1lab eval`,
 * and shows its progress; "compare" opens the compare view on two eval runs.
 */
import { useEffect, useState } from 'react';
import type { RunListing, RunProgress } from '../../../../electron/domain/runs';
import { getLabApi } from '../../lab/api';
import { useTraining } from '../../stores/training';
import { useNav } from '../../stores/nav';
import { userError } from '../../lab/errors';
import { DEFAULT_EVAL_SETTINGS, evalSettingsRequest, SETTING_LABELS, SETTING_PATHS, settingOfPath, type EvalSetting, type EvalSettingsDraft } from '../runs/eval-settings';
import { EvalSettingsFields, type SettingFailure } from '../runs/EvalSettingsFields';

const LABELS = Object.fromEntries((Object.keys(SETTING_PATHS) as EvalSetting[]).map((k) => [SETTING_PATHS[k], SETTING_LABELS[k]]));

const pct = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);

export function CheckpointsPanel() {
  const { checkpoints, refreshCheckpoints } = useTraining();
  const { link } = useNav();
  const [suite, setSuite] = useState('tasks/examples');
  const [settings, setSettings] = useState<EvalSettingsDraft>(DEFAULT_EVAL_SETTINGS);
  const [failure, setFailure] = useState<SettingFailure | null>(null);
  const [progress, setProgress] = useState<Record<string, RunProgress>>({});
  const [evals, setEvals] = useState<RunListing[]>([]);
  const [pair, setPair] = useState<{ a: string; b: string }>({ a: '', b: '' });
  const [error, setError] = useState<string | null>(null);

  const refreshEvals = () =>
    getLabApi()
      .methods['runs.list']({})
      .then((runs) => setEvals(runs.filter((r) => r.kind === 'eval')), (e: Error) => setError(e.message));
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

  const evaluate = async (path: string) => {
    setError(null);
    setFailure(null);
    try {
      const { runId } = await getLabApi().methods['runs.start'](
        { suite, policy: `onnx:${path}`, ...evalSettingsRequest(settings) },
        { timeoutMs: 180_000 },
      );
      setProgress((all) => ({ ...all, [runId]: { runId, runDir: '', state: 'running', total: 0, done: 0, resolved: 0, cut: 0, running: [], message: null } }));
      await Promise.all([refreshCheckpoints(), refreshEvals()]);
    } catch (e) {
      const problem = userError(e, LABELS);
      const setting = settingOfPath(problem.field);
      if (setting) setFailure({ field: setting, message: problem.message });
      else setError(problem.message);
    }
  };

  // Default pair: the first and the last checkpoint's finished evaluations.
  const finished = checkpoints.flatMap((c) => c.evalRuns.filter((r) => r.state === 'complete'));
  const a = pair.a || finished[0]?.runId || '';
  const b = pair.b || finished[finished.length - 1]?.runId || '';

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
      {error && <div className="error" role="alert">{error}</div>}
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
              <tr key={c.path} data-testid="checkpoint-row" data-step={c.step ?? ''} title={c.path}>
                <td>
                  {c.name} {c.best && <span className="badge verdict-ok">best</span>}
                </td>
                <td>{c.step ?? '—'}</td>
                <td>{c.evalLoss === null ? '—' : c.evalLoss.toFixed(4)}</td>
                <td>
                  {c.evalRuns.map((r) => {
                    const p = progress[r.runId];
                    return (
                      <div key={r.runId} className="small" data-testid="checkpoint-eval" data-run={r.runId} data-state={p?.state === 'running' ? 'running' : r.state}>
                        {r.runId}: {p?.state === 'running' ? `running ${p.done}/${p.total}` : `${pct(r.resolvedRate)} resolved (${r.state})`}
                      </div>
                    );
                  })}
                </td>
                <td>
                  <button onClick={() => void evaluate(c.path)} data-testid="evaluate">
                    Evaluate
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="toolbar compare-bar">
        compare
        <select value={a} onChange={(e) => setPair({ a: e.target.value, b })} data-testid="compare-a" aria-label="eval run A">
          <option value="">eval run A</option>
          {evals.map((r) => (
            <option key={r.id} value={r.id}>
              {r.id} · {r.policy.split('/').slice(-2).join('/')} · {pct(r.resolvedRate)}
            </option>
          ))}
        </select>
        <select value={b} onChange={(e) => setPair({ a, b: e.target.value })} data-testid="compare-b" aria-label="eval run B">
          <option value="">eval run B</option>
          {evals.map((r) => (
            <option key={r.id} value={r.id}>
              {r.id} · {r.policy.split('/').slice(-2).join('/')} · {pct(r.resolvedRate)}
            </option>
          ))}
        </select>
        <button disabled={!a || !b || a === b} onClick={() => link('compare', [a, b])} data-testid="compare" title="opens the compare view: paired tests, forest plot, task diff">
          Compare
        </button>
      </div>
    </section>
  );
}
