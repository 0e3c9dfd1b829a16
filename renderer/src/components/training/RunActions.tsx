/** The buttons come first, so they stay put while the figures after them change. Pause at a step boundary, resume (a paused run, or a stopped or killed one from its last checkpoint), stop (checkpoint first). */
import type { TrainingRunSummary } from '../../../../electron/domain/training-view';
import { useTraining } from '../../stores/training';
import { formatEta } from './TrainingRunsTable';

export function RunActions({ run }: { run: TrainingRunSummary }) {
  const { control } = useTraining();
  const active = run.state === 'running' || run.state === 'starting';
  const resumable =
    run.state === 'paused' || run.state === 'stopped' || run.state === 'incomplete' || run.state === 'failed';
  const share = run.totalSteps ? Math.min(1, run.step / run.totalSteps) : 0;
  return (
    <div className="run-progress toolbar" data-testid="run-actions" data-run={run.id} data-state={run.state}>
      <strong>{run.id}</strong>
      {active && (
        <button onClick={() => void control(run.id, 'pause')} data-testid="pause">
          Pause
        </button>
      )}
      {resumable && (
        <button onClick={() => void control(run.id, 'resume')} data-testid="resume">
          Resume
        </button>
      )}
      {(active || run.state === 'paused') && (
        <button
          onClick={() => void control(run.id, 'stop')}
          data-testid="stop"
          title="stop after this step; a checkpoint is written first"
        >
          Stop
        </button>
      )}
      <progress max={1} value={share} />
      <span>
        step {run.step}
        {run.totalSteps !== null ? `/${run.totalSteps}` : ''} · {run.state} · ETA {formatEta(run.etaS)}
      </span>
      {run.message && <span className="muted">{run.message}</span>}
    </div>
  );
}
