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
import {
  describeTrainingRun,
  listTrainingCheckpoints,
  listTrainingRunDirs,
  viewRunPath,
  VIEW_FILES,
} from './view-runs';

/** How often followed metrics files are checked for new lines. */
const TAIL_MS = 1_000;
/** How often the runs list is re-read for ended runs while someone watches. */
const STATES_MS = 2_000;
/** Runs whose columns stay in memory (a 100k-step run with 20 metrics is ~16 MB). */
const STORES_KEPT = 8;

const ENDED = new Set<string>(ENDED_STATES);

export function trainingViewHandlers(ctx: HostContext): Handlers<typeof trainingViewContract> {
  const view = new TrainingRunsView(ctx);
  const runDir = (runId: string) => viewRunPath(ctx.dataDir, runId); // an unknown run fails here, naming it
  return {
    'training.runs': (_input, { connectionId }) => view.runs(connectionId),
    'training.series': ({ runId, keys, maxPoints, smoothing }) => view.series(runId, { keys, maxPoints, smoothing }),
    'training.follow': ({ runIds }, { connectionId }) => view.follow(connectionId, runIds),
    'training.rolloutSteps': ({ runId }) => ({ steps: listRolloutSteps(runDir(runId)) }),
    'training.rollouts': ({ runId, step }) => readRolloutStep(runDir(runId), step),
    'training.rollout': ({ runId, step, key }) => readRollout(runId, runDir(runId), step, key),
    'training.rolloutEpisode': ({ runId, step, key }) => readRolloutEpisode(runId, runDir(runId), step, key),
    'training.rolloutRecording': ({ runId, step, key }) => readRolloutRecording(runDir(runId), step, key),
    'training.details': ({ runId }) => readTrainingRunDetails(runId, runDir(runId)),
    'training.heldOut': ({ runId }) => {
      runDir(runId);
      return heldOutPoints(ctx.dataDir, runId);
    },
    'training.guard': ({ runId, minRise }) => readDenseGuard(runDir(runId), minRise),
    'training.checkpoints': ({ runId }) => checkpointsWithEvaluations(ctx.dataDir, runDir(runId)),
    'training.checkConfig': ({ stage, configToml, overrides }) => checkRunConfig(stage, configToml, overrides),
    'training.compare': ({ a, b }) => compareRuns(a, runPath(ctx.dataDir, a), b, runPath(ctx.dataDir, b)),
  };
}

/** A run's checkpoints, each with the evaluation runs of its `onnx:` policy. */
function checkpointsWithEvaluations(dataDir: string, runDir: string) {
  const evals = listRuns(dataDir, new Set());
  return listTrainingCheckpoints(runDir).map((c) => ({
    ...c,
    evalRuns: evals
      .filter((r) => r.policy === `onnx:${c.path}`)
      .map((r) => ({ runId: r.id, suite: r.suite, resolvedRate: r.resolvedRate, state: r.state })),
  }));
}

type RunState = TrainingRunSummary['state'];

/** The runs seen live last time and ended now; `states` is updated to this look. A run seen first ended is not news. */
export function newlyEnded(states: Map<string, RunState>, runs: readonly TrainingRunSummary[]): TrainingRunSummary[] {
  const ended: TrainingRunSummary[] = [];
  for (const run of runs) {
    const before = states.get(run.id);
    states.set(run.id, run.state);
    if (before && !ENDED.has(before) && ENDED.has(run.state)) ended.push(run);
  }
  return ended;
}

/** The desktop notification for a run that ended. */
export function endedNotice(run: TrainingRunSummary): { title: string; body: string } {
  return {
    title: `Training ${run.state === 'completed' ? 'finished' : run.state}: ${run.id}`,
    body: `${run.stage}, step ${run.step}${run.totalSteps ? `/${run.totalSteps}` : ''}${run.message ? ` — ${run.message}` : ''}`,
  };
}

/** The values opened for the keys used most recently, at most `kept` of them (the least recently used is dropped). */
export class RecentlyUsed<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly kept: number) {}

  /** The value for `key`, opened on first use, now the most recently used. */
  get(key: string, open: (key: string) => V): V {
    let value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key); // re-insert: most recently used last
    } else {
      value = open(key);
      if (this.entries.size >= this.kept) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, value);
    return value;
  }

  /** The value held for `key`, without opening one or changing the order. */
  peek(key: string): V | undefined {
    return this.entries.get(key);
  }
}

/** Starts `tick` every `ms` when wanted and none runs, stops the running one when not wanted; the timer to keep. */
function keepInterval(timer: Timer | null, wanted: boolean, tick: () => void, ms: number): Timer | null {
  if (wanted && !timer) {
    const started = setInterval(tick, ms);
    started.unref?.();
    return started;
  }
  if (!wanted && timer) {
    clearInterval(timer);
    return null;
  }
  return timer;
}

type Timer = ReturnType<typeof setInterval>;

/**
 * The live side of the Training page: metric columns per run, the connections following runs (tailed every
 * TAIL_MS) and those watching the list (re-read every STATES_MS for runs that ended).
 */
class TrainingRunsView {
  private readonly stores = new RecentlyUsed<SeriesStore>(STORES_KEPT);
  private readonly followers = new Map<string, Set<string>>(); // connection -> run ids
  private readonly watchers = new Set<string>(); // connections with a Training page open
  private readonly states = new Map<string, RunState>();
  private tailTimer: Timer | null = null;
  private statesTimer: Timer | null = null;

  constructor(private readonly ctx: HostContext) {}

  runs(connectionId: string): TrainingRunSummary[] {
    this.watch(connectionId);
    const runs = this.listing();
    this.announceEnded(runs);
    return runs;
  }

  series(runId: string, options: Parameters<typeof seriesView>[2]) {
    const store = this.storeFor(runId);
    this.refresh(runId, store);
    return seriesView(runId, store, options);
  }

  follow(connectionId: string, runIds: string[]): { following: string[] } {
    for (const id of runIds) viewRunPath(this.ctx.dataDir, id); // unknown ids fail here, naming the id
    this.watch(connectionId);
    this.followers.set(connectionId, new Set(runIds));
    this.schedule();
    return { following: runIds };
  }

  private storeFor(runId: string): SeriesStore {
    return this.stores.get(runId, (id) => new SeriesStore(join(viewRunPath(this.ctx.dataDir, id), VIEW_FILES.metrics)));
  }

  /** Read what was appended and pass it to the followers, whoever asked for the read. */
  private refresh(runId: string, store: SeriesStore): void {
    const fromRow = store.rows;
    const rows: MetricRow[] = store.refresh(this.followers.size > 0);
    if (!rows.length) return;
    for (const [connection, runs] of this.followers)
      if (runs.has(runId)) this.ctx.emitTo(connection, 'training.rows', { runId, fromRow, rows });
  }

  private listing(): TrainingRunSummary[] {
    return listTrainingRunDirs(this.ctx.dataDir)
      .map(({ id, dir }) => {
        // A run whose columns are held is refreshed (its followers get the rows); others are read at their ends only.
        const store = this.stores.peek(id);
        if (store) this.refresh(id, store);
        return describeTrainingRun(id, dir, store ? store.last() : lastMetricRow(join(dir, VIEW_FILES.metrics)));
      })
      .sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? '') || b.id.localeCompare(a.id));
  }

  private announceEnded(runs = this.listing()): void {
    for (const run of newlyEnded(this.states, runs)) {
      this.ctx.emit('training.ended', {
        runId: run.id,
        stage: run.stage,
        state: run.state,
        step: run.step,
        message: run.message,
      });
      const notice = endedNotice(run);
      this.ctx.notify?.(notice.title, notice.body);
    }
  }

  private tailFollowed(): void {
    const runs = new Set([...this.followers.values()].flatMap((s) => [...s]));
    for (const runId of runs) {
      try {
        this.refresh(runId, this.storeFor(runId));
      } catch (error) {
        this.ctx.log(`following ${runId}: ${(error as Error).message}`);
      }
    }
  }

  private pollStates(): void {
    try {
      this.announceEnded();
    } catch (error) {
      this.ctx.log(`training runs: ${(error as Error).message}`);
    }
  }

  /** The tail runs while someone follows a run, the states poll while someone watches. */
  private schedule(): void {
    const following = [...this.followers.values()].some((s) => s.size > 0);
    this.tailTimer = keepInterval(this.tailTimer, following, () => this.tailFollowed(), TAIL_MS);
    this.statesTimer = keepInterval(this.statesTimer, this.watchers.size > 0, () => this.pollStates(), STATES_MS);
  }

  private watch(connectionId: string): void {
    if (this.watchers.has(connectionId)) return;
    this.watchers.add(connectionId);
    this.ctx.onDisconnect(connectionId, () => {
      this.watchers.delete(connectionId);
      this.followers.delete(connectionId);
      this.schedule();
    });
    this.schedule();
  }
}
