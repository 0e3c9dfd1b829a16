/**
 * The `training.*` reading methods (contracts/training-view.ts). Metric files are held as columns per run
 * (a few runs, least recently used dropped) and tailed once a second for the connections that follow them;
 * the runs list is polled while a Training page is open so that a run ending, whoever started it, becomes
 * a `training.ended` event and a desktop notification.
 */
import { join } from 'node:path';
import type { trainingViewContract } from '../../ipc/common/contracts/training-view';
import type { Handlers } from '../../ipc/common/router';
import type { MetricRow } from '../../domain/training-metrics';
import { ENDED_STATES, type TrainingRunSummary } from '../../domain/training-view';
import type { HostContext } from '../host-context';
import { readDenseGuard } from '../ppo/guard-report';
import { listRuns, runPath } from '../runs/library';
import { checkRunConfig } from './check-config';
import { heldOutPoints } from './held-out';
import { readRolloutEpisode, readRolloutRecording } from './rollout-episode';
import { readTrainingRunDetails } from './run-details';
import { compareRuns } from './compare-runs';
import { lastMetricRow } from './metrics-tail';
import { SeriesStore } from './series-store';
import { seriesView } from './series-view';
import { listRolloutSteps, readRollout, readRolloutStep } from './view-rollouts';
import { describeTrainingRun, listTrainingCheckpoints, listTrainingRunDirs, viewRunPath, VIEW_FILES } from './view-runs';

/** How often followed metrics files are checked for new lines. */
const TAIL_MS = 1_000;
/** How often the runs list is re-read for ended runs while someone watches. */
const STATES_MS = 2_000;
/** Runs whose columns stay in memory (a 100k-step run with 20 metrics is ~16 MB). */
const STORES_KEPT = 8;

const ENDED = new Set<string>(ENDED_STATES);

export function trainingViewHandlers(ctx: HostContext): Handlers<typeof trainingViewContract> {
  const stores = new Map<string, SeriesStore>();
  const followers = new Map<string, Set<string>>(); // connection -> run ids
  const watchers = new Set<string>(); // connections with a Training page open
  const states = new Map<string, TrainingRunSummary['state']>();
  let tailTimer: ReturnType<typeof setInterval> | null = null;
  let statesTimer: ReturnType<typeof setInterval> | null = null;

  const storeFor = (runId: string): SeriesStore => {
    let store = stores.get(runId);
    if (store) {
      stores.delete(runId); // re-insert: most recently used last
    } else {
      store = new SeriesStore(join(viewRunPath(ctx.dataDir, runId), VIEW_FILES.metrics));
      if (stores.size >= STORES_KEPT) stores.delete(stores.keys().next().value!);
    }
    stores.set(runId, store);
    return store;
  };

  /** Read what was appended and pass it to the followers, whoever asked for the read. */
  const refresh = (runId: string, store: SeriesStore) => {
    const fromRow = store.rows;
    const rows: MetricRow[] = store.refresh(followers.size > 0);
    if (!rows.length) return;
    for (const [connection, runs] of followers) if (runs.has(runId)) ctx.emitTo(connection, 'training.rows', { runId, fromRow, rows });
  };

  const listing = (): TrainingRunSummary[] =>
    listTrainingRunDirs(ctx.dataDir)
      .map(({ id, dir }) => {
        // A run whose columns are held is refreshed (its followers get the rows); others are read at their ends only.
        const store = stores.get(id);
        if (store) refresh(id, store);
        return describeTrainingRun(id, dir, store ? store.last() : lastMetricRow(join(dir, VIEW_FILES.metrics)));
      })
      .sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '') || b.id.localeCompare(a.id));

  const checkStates = (runs = listing()) => {
    for (const run of runs) {
      const before = states.get(run.id);
      states.set(run.id, run.state);
      if (!before || ENDED.has(before) || !ENDED.has(run.state)) continue;
      ctx.emit('training.ended', { runId: run.id, stage: run.stage, state: run.state, step: run.step, message: run.message });
      ctx.notify?.(`Training ${run.state === 'completed' ? 'finished' : run.state}: ${run.id}`, `${run.stage}, step ${run.step}${run.totalSteps ? `/${run.totalSteps}` : ''}${run.message ? ` — ${run.message}` : ''}`);
    }
  };

  const schedule = () => {
    const following = [...followers.values()].some((s) => s.size > 0);
    if (following && !tailTimer) {
      tailTimer = setInterval(() => {
        const runs = new Set([...followers.values()].flatMap((s) => [...s]));
        for (const runId of runs) {
          try {
            refresh(runId, storeFor(runId));
          } catch (error) {
            ctx.log(`following ${runId}: ${(error as Error).message}`);
          }
        }
      }, TAIL_MS);
      tailTimer.unref?.();
    } else if (!following && tailTimer) {
      clearInterval(tailTimer);
      tailTimer = null;
    }
    if (watchers.size && !statesTimer) {
      statesTimer = setInterval(() => {
        try {
          checkStates();
        } catch (error) {
          ctx.log(`training runs: ${(error as Error).message}`);
        }
      }, STATES_MS);
      statesTimer.unref?.();
    } else if (!watchers.size && statesTimer) {
      clearInterval(statesTimer);
      statesTimer = null;
    }
  };

  const watch = (connectionId: string) => {
    if (watchers.has(connectionId)) return;
    watchers.add(connectionId);
    ctx.onDisconnect(connectionId, () => {
      watchers.delete(connectionId);
      followers.delete(connectionId);
      schedule();
    });
    schedule();
  };

  return {
    'training.runs': (_input, { connectionId }) => {
      watch(connectionId);
      const runs = listing();
      checkStates(runs);
      return runs;
    },
    'training.series': ({ runId, keys, maxPoints, smoothing }) => {
      const store = storeFor(runId);
      refresh(runId, store);
      return seriesView(runId, store, { keys, maxPoints, smoothing });
    },
    'training.follow': ({ runIds }, { connectionId }) => {
      for (const id of runIds) viewRunPath(ctx.dataDir, id); // unknown ids fail here, naming the id
      watch(connectionId);
      followers.set(connectionId, new Set(runIds));
      schedule();
      return { following: runIds };
    },
    'training.rolloutSteps': ({ runId }) => ({ steps: listRolloutSteps(viewRunPath(ctx.dataDir, runId)) }),
    'training.rollouts': ({ runId, step }) => readRolloutStep(viewRunPath(ctx.dataDir, runId), step),
    'training.rollout': ({ runId, step, key }) => readRollout(runId, viewRunPath(ctx.dataDir, runId), step, key),
    'training.rolloutEpisode': ({ runId, step, key }) => readRolloutEpisode(runId, viewRunPath(ctx.dataDir, runId), step, key),
    'training.rolloutRecording': ({ runId, step, key }) => readRolloutRecording(viewRunPath(ctx.dataDir, runId), step, key),
    'training.details': ({ runId }) => readTrainingRunDetails(runId, viewRunPath(ctx.dataDir, runId)),
    'training.heldOut': ({ runId }) => {
      viewRunPath(ctx.dataDir, runId); // an unknown run fails here, naming it
      return heldOutPoints(ctx.dataDir, runId);
    },
    'training.guard': ({ runId, minRise }) => readDenseGuard(viewRunPath(ctx.dataDir, runId), minRise),
    'training.checkpoints': ({ runId }) => {
      const dir = viewRunPath(ctx.dataDir, runId);
      const evals = listRuns(ctx.dataDir, new Set());
      return listTrainingCheckpoints(dir).map((c) => ({
        ...c,
        evalRuns: evals
          .filter((r) => r.policy === `onnx:${c.path}`)
          .map((r) => ({ runId: r.id, suite: r.suite, resolvedRate: r.resolvedRate, state: r.state })),
      }));
    },
    'training.checkConfig': ({ stage, configToml, overrides }) => checkRunConfig(stage, configToml, overrides),
    'training.compare': ({ a, b }) => compareRuns(a, runPath(ctx.dataDir, a), b, runPath(ctx.dataDir, b)),
  };
}
