/**
 * Training: start and control runs, what a run ran with (config, hyperparameters, log), its held-out
 * resolved rate by step, its live charts (every metric, grouped; EMA over faint raw; x by
 * step, wall time or tokens; log scale; shared crosshair and zoom; runs overlaid), a step's rollouts
 * opened token by token, the dense-reward guard of a PPO run, and the checkpoints evaluated and compared.
 */
import { useEffect, useState } from 'react';
import { ChartGrid, ChartToolbar } from '../components/training/ChartGrid';
import { CheckpointsPanel } from '../components/training/CheckpointsPanel';
import { DenseGuardPanel } from '../components/training/DenseGuardPanel';
import { NewRunForm } from '../components/training/NewRunForm';
import { RunActions } from '../components/training/RunActions';
import { RolloutTable } from '../components/training/RolloutTable';
import { RolloutViewer } from '../components/training/RolloutViewer';
import { TrainingRunsTable } from '../components/training/TrainingRunsTable';
import { HeldOutChart } from '../components/training/HeldOutChart';
import { RolloutEpisodePanel } from '../components/training/RolloutEpisodePanel';
import { RunDetailsPanel } from '../components/training/RunDetailsPanel';
import { askNotificationPermission, notificationPermission } from '../lab/notifications';
import { getLabApi } from '../lab/api';
import { useTraining } from '../stores/training';
import { useNav } from '../stores/nav';
import { RunMetaEditor } from '../components/runs/RunMetaEditor';
import './runs.css';
import { useTrainingAddress } from '../components/training/use-training-address';
import './training.css';

const LIST_REFRESH_MS = 3_000;

function NotifyButton() {
  const [permission, setPermission] = useState(notificationPermission());
  if (getLabApi().mode !== 'web' || permission === 'unsupported' || permission === 'granted') return null;
  return (
    <button
      onClick={() => void askNotificationPermission().then(setPermission)}
      disabled={permission === 'denied'}
      title="a desktop notification when a run finishes or fails"
    >
      {permission === 'denied' ? 'notifications blocked' : 'Notify me when runs end'}
    </button>
  );
}

function Rollouts() {
  const { rolloutSteps, rolloutStep, rollout, openStep, openRollout, closeRollout } = useTraining();
  if (!rolloutSteps.length)
    return <p className="muted">This run has no rollouts (LM and SFT runs have none; PPO keeps them per step).</p>;
  return (
    <div className="rollouts" data-testid="rollouts">
      <div className="toolbar">
        <label>
          step{' '}
          <select
            value={rolloutStep?.step ?? ''}
            onChange={(e) => void openStep(Number(e.target.value))}
            data-testid="rollout-step"
          >
            <option value="" disabled>
              pick a step
            </option>
            {rolloutSteps.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <span className="muted small">or click a point of a chart</span>
      </div>
      {rolloutStep && (
        <RolloutTable step={rolloutStep} onOpen={(key) => void openRollout(key)} openKey={rollout?.key ?? null} />
      )}
      {rollout && <RolloutViewer view={rollout} onClose={closeRollout} />}
      {rollout && <RolloutEpisodePanel runId={rollout.runId} step={rollout.step} episodeKey={rollout.key} />}
    </div>
  );
}

/** Read the training runs now, every LIST_REFRESH_MS and on the host's run events, while mounted. */
function useTrainingRunsRefresh(refreshRuns: () => Promise<void>, watch: () => () => void): void {
  useEffect(() => {
    void refreshRuns();
    const off = watch();
    const timer = setInterval(() => void refreshRuns(), LIST_REFRESH_MS);
    return () => {
      off();
      clearInterval(timer);
    };
  }, [refreshRuns, watch]);
}

/** The New-run form, folded: `open` says whether it is shown; a click on its summary asks for the other. */
function NewRunSection({ open, onOpen }: { open: boolean; onOpen: (open: boolean) => void }) {
  return (
    <details className="new-run" open={open} data-testid="new-run">
      {/* Controlled: only the user's click decides (a toggle event also fires when the default changes). */}
      <summary
        onClick={(e) => {
          e.preventDefault();
          onOpen(!open);
        }}
      >
        New run
      </summary>
      <NewRunForm onStarted={() => onOpen(false)} />
    </details>
  );
}

export function TrainingPage() {
  const { runs, primary, error, refreshRuns, watch, checkpoints } = useTraining();
  const current = runs.find((r) => r.id === primary) ?? null;
  // The New-run form: open while there is no run, then as the user leaves it; closed once a run starts.
  const [formOpen, setFormOpen] = useState<boolean | null>(null);
  const live = current !== null && ['running', 'starting', 'paused', 'stopping'].includes(current.state);
  // The held-out curve is re-read when an evaluation of a checkpoint starts or ends.
  const evalVersion = checkpoints.flatMap((c) => c.evalRuns.map((r) => `${r.runId}:${r.state}`)).join(',');
  useTrainingAddress();
  useTrainingRunsRefresh(refreshRuns, watch);

  return (
    <section data-testid="page-training" className="training-page">
      <NewRunSection open={formOpen ?? runs.length === 0} onOpen={setFormOpen} />
      <div className="toolbar">
        <NotifyButton />
      </div>
      {error && (
        <div className="error" role="alert">
          {error}
        </div>
      )}
      <h2>Runs</h2>
      <TrainingRunsTable runs={runs} />
      {current && <RunActions run={current} />}
      {current && (
        <RunMetaEditor
          runId={current.id}
          name={current.name ?? null}
          tags={current.tags ?? []}
          notes={current.notes ?? ''}
          running={live}
          onChanged={() => void refreshRuns()}
          onRemoved={() => {
            useTraining.setState({ primary: null, charted: [] });
            useNav.getState().link('training', [], { replace: true });
            void refreshRuns();
          }}
        />
      )}
      {current && <RunDetailsPanel runId={current.id} live={live} />}
      {primary && (
        <>
          <h2>Held-out resolved rate</h2>
          <HeldOutChart runId={primary} version={evalVersion} />
          <h2>Charts</h2>
          <ChartToolbar />
          <ChartGrid />
          <h2>Rollouts</h2>
          <Rollouts />
          {current?.stage === 'ppo' && (
            <>
              <h2>Dense-reward guard</h2>
              <DenseGuardPanel runId={current.id} step={current.step} />
            </>
          )}
          <h2>Checkpoints</h2>
          <CheckpointsPanel />
        </>
      )}
    </section>
  );
}
