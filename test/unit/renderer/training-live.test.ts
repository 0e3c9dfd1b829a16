import { expect, test } from 'vitest';
import type { TrainingProgress } from '../../../electron/domain/training';
import type { TrainingRunSummary } from '../../../electron/domain/training-view';
import { withLiveProgress } from '../../../renderer/src/stores/training-live';

const listed = (id: string): TrainingRunSummary => ({
  id,
  dir: `/r/${id}`,
  stage: 'ppo',
  state: 'incomplete',
  step: 3,
  totalSteps: 10,
  etaS: null,
  lastFigure: null,
  startedAt: null,
  updatedAt: null,
  message: null,
});
const progress = (runId: string, state: TrainingProgress['state'], step: number) =>
  ({ runId, state, step, totalSteps: 20, etaS: 42, message: 'working' }) as TrainingProgress;

test("withLiveProgress: an active run takes the trainer's state, step, total, ETA and message; an ended or unreported one keeps its files' word", () => {
  const runs = withLiveProgress([listed('a'), listed('b'), listed('c')], {
    a: progress('a', 'running', 7),
    b: progress('b', 'completed', 20),
  });
  expect(runs[0]).toMatchObject({
    id: 'a',
    state: 'running',
    step: 7,
    totalSteps: 20,
    etaS: 42,
    message: 'working',
    dir: '/r/a',
  });
  expect(runs[1]).toEqual(listed('b'));
  expect(runs[2]).toEqual(listed('c'));
});
