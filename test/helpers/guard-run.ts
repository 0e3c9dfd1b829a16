/**
 * A PPO run folder for the dense-reward guard, its episodes written with the PPO stage's own writers
 * (electron/lab/ppo/rollout-files.ts). Two tasks over six trained steps:
 *   count-lines (text-processing): `output_exists` goes 0 -> 100% passing while the task is never resolved
 *     (farmed: flagged); `count_correct` never passes.
 *   make-hello (file-operations): `file_exists` rises too, but so does the binary reward (learning: not
 *     flagged); `greeting_ok` passes half the time throughout.
 * Step 7 is being collected (no metrics row yet) and every assertion fails in it: it must not count. Each
 * step also has an aborted episode failing everything: not trained on, so not counted.
 */
import { join } from 'node:path';
import { JsonlAppender, ROLLOUT_FILES, stepDir, type RolloutEpisode } from '../../electron/lab/ppo/rollout-files';
import { writeTrainingRun } from './training-run';

export const GUARD_STEPS = 6;
export const FARMED = { taskId: 'count-lines', assertion: 'output_exists', category: 'text-processing' } as const;

function episode(
  step: number,
  i: number,
  taskId: string,
  category: string,
  passed: Record<string, boolean>,
  binary: number,
  aborted = false,
): RolloutEpisode {
  const n = Object.values(passed).filter(Boolean).length;
  const key = `${taskId}-s${step}-${i}`;
  return {
    key,
    taskId,
    category,
    group: taskId,
    attempt: i,
    policyVersion: step - 1,
    reward: { dense: n, fraction: n / Object.keys(passed).length, binary },
    resolved: binary === 1,
    assertions: Object.entries(passed).map(([name, p]) => ({ name, passed: p })),
    turns: 2,
    completionTokens: 40,
    stopReason: 'submitted',
    error: null,
    aborted,
    durationMs: 1000,
    generationMs: 700,
    environmentMs: 300,
    dir: `${ROLLOUT_FILES.episodeDir}/${key}`,
  };
}

function stepEpisodes(step: number): RolloutEpisode[] {
  const late = step > GUARD_STEPS / 2;
  const collecting = step > GUARD_STEPS;
  const out: RolloutEpisode[] = [];
  for (let i = 0; i < 2; i++) {
    out.push(
      episode(
        step,
        i,
        'count-lines',
        'text-processing',
        { output_exists: late && !collecting, count_correct: false },
        0,
      ),
    );
    const learnt = late && !collecting;
    out.push(
      episode(
        step,
        i,
        'make-hello',
        'file-operations',
        { file_exists: learnt, greeting_ok: learnt || i === 0 },
        learnt ? 1 : 0,
      ),
    );
  }
  out.push(episode(step, 9, 'count-lines', 'text-processing', { output_exists: false, count_correct: false }, 0, true));
  return out;
}

/** The run folder `dataDir/training/<id>`: run.json (stage ppo), metrics.jsonl through step 6, rollouts 1..7. */
export function writeGuardRun(dataDir: string, id: string): string {
  const dir = writeTrainingRun(dataDir, id, { steps: GUARD_STEPS + 1, totalSteps: 20, state: 'running' });
  for (let step = 1; step <= GUARD_STEPS + 1; step++) {
    const out = new JsonlAppender(join(stepDir(dir, step), ROLLOUT_FILES.episodes));
    try {
      for (const e of stepEpisodes(step)) out.append(e);
    } finally {
      out.close();
    }
  }
  return dir;
}
