/**
 * The Training page's data: training runs (the app's and the CLI's), the runs whose metrics are charted
 * (one primary, others overlaid), their series (decimated by the host, smoothed over every point) kept
 * live by `training.rows`, chart settings, and the rollout, checkpoint and comparison views.
 */
import { create, type StoreApi } from 'zustand';
import { emaStep, emptyEma } from '../../../electron/domain/series';
import type { MetricRow, RunSeries, SeriesPoints, XAxis } from '../../../electron/domain/training-metrics';
import type { LabInput } from '../../../electron/ipc/common/contract';
import type { TrainingProgress } from '../../../electron/domain/training';
import type {
  RolloutStep,
  RolloutView,
  RunComparison,
  TrainingCheckpoint,
  TrainingRunSummary,
} from '../../../electron/domain/training-view';
import { getLabApi } from '../lab/api';
import type { TrainingUrlState } from '../components/training/url-state';
import { withLiveProgress, withProgress } from './training-live';

/** Points per series asked of the host; past twice this, live rows trigger a fresh decimated read. */
export const CHART_POINTS = 2000;
export const MAX_OVERLAY = 8;

export type ColourBy = 'logprob' | 'advantage' | 'value' | 'tisWeight';

interface TrainingState {
  runs: TrainingRunSummary[];
  error: string | null;
  /** The run whose rollouts and checkpoints are shown; first of `charted`. */
  primary: string | null;
  /** Runs whose metrics are charted (the primary, then overlays). */
  charted: string[];
  series: Record<string, RunSeries>;
  xAxis: XAxis;
  smoothing: number;
  /** Per-chart log scale the user set (else the metric's default). */
  logScale: Record<string, boolean>;
  hiddenGroups: string[];
  /** Panel search: a regular expression over metric names ('' shows every panel). */
  panelFilter: string;
  /** Panels shown first, in their own section (metric names or `family/*`). */
  pinned: string[];
  /** Charts of several metrics each, by id (`pg_loss+vf_loss`), in the order made. */
  combined: string[];
  addCombined(id: string): void;
  removeCombined(id: string): void;
  /** Show the panels whose every line holds one value (hidden by default). */
  showConstant: boolean;
  setShowConstant(show: boolean): void;
  /** Charted runs that differ only in seed drawn as one mean line with a min–max band. */
  poolSeeds: boolean;
  setPoolSeeds(pool: boolean): void;
  setPanelFilter(filter: string): void;
  togglePin(panel: string): void;
  /** Restore what the address says (run, overlays, axis, smoothing, log scales, search, pins, constant panels, opened rollout). */
  restore(state: TrainingUrlState): Promise<void>;
  rolloutSteps: number[];
  rolloutStep: RolloutStep | null;
  rollout: RolloutView | null;
  colourBy: ColourBy;
  checkpoints: TrainingCheckpoint[];
  comparison: RunComparison | null;
  refreshRuns(): Promise<void>;
  selectPrimary(runId: string): Promise<void>;
  toggleOverlay(runId: string): Promise<void>;
  loadSeries(runId: string): Promise<void>;
  setXAxis(x: XAxis): void;
  setSmoothing(s: number): void;
  setLog(key: string, on: boolean): void;
  toggleGroup(id: string): void;
  openStep(step: number): Promise<void>;
  openRollout(key: string): Promise<void>;
  closeRollout(): void;
  setColourBy(c: ColourBy): void;
  refreshCheckpoints(): Promise<void>;
  compare(a: string, b: string): Promise<void>;
  /** The trainer's word on runs it works on (state, step), newer than the files. */
  live: Record<string, TrainingProgress>;
  starting: boolean;
  /**
   * Start a run, then list and select it; resolves with its id (null on failure, the error set). `onAccepted`
   * runs as soon as the trainer took the run, before the new run is listed and selected.
   */
  start(request: LabInput<'training.start'>, onAccepted?: (runId: string) => void): Promise<string | null>;
  control(runId: string, action: 'pause' | 'resume' | 'stop'): Promise<void>;
  /** Follow the charted runs' new rows; returns the unsubscribe. */
  watch(): () => void;
}

const message = (error: unknown) => (error as Error).message ?? String(error);

/**
 * Append live rows to a run's series, continuing each EMA from the host's state (exact, not re-approximated).
 * Each series is copied once per batch (a fast run sends dozens of rows a second).
 */
export function appendRows(s: RunSeries, rows: MetricRow[]): RunSeries {
  const added: Record<string, SeriesPoints> = {};
  const ema = { ...s.ema };
  for (const row of rows) {
    for (const [key, value] of Object.entries(row.values)) {
      const a = (added[key] ??= { step: [], wall: [], tokens: [], raw: [], ema: [] });
      const state = (ema[key] = ema[key] === s.ema[key] ? { ...(s.ema[key] ?? emptyEma()) } : ema[key]!);
      a.step.push(row.step);
      a.wall.push(row.wall);
      a.tokens.push(row.tokens);
      a.raw.push(value);
      a.ema.push(emaStep(state, value, s.smoothing));
    }
  }
  const series = { ...s.series };
  for (const [key, a] of Object.entries(added)) {
    const prev = series[key];
    series[key] = prev
      ? {
          step: prev.step.concat(a.step),
          wall: prev.wall.concat(a.wall),
          tokens: prev.tokens.concat(a.tokens),
          raw: prev.raw.concat(a.raw),
          ema: prev.ema.concat(a.ema),
        }
      : a;
  }
  return { ...s, rows: s.rows + rows.length, series, ema };
}

type SetState = StoreApi<TrainingState>['setState'];
type GetState = StoreApi<TrainingState>['getState'];

export const useTraining = create<TrainingState>((set, get) => ({
  runs: [],
  error: null,
  primary: null,
  charted: [],
  series: {},
  checkpoints: [],
  comparison: null,
  live: {},
  starting: false,
  ...chartSettings(set, get),
  ...runsAndCharted(set, get),
  ...runControl(set, get),
  ...rolloutViews(set, get),
  async restore(state) {
    set({
      xAxis: state.xAxis,
      smoothing: state.smoothing,
      logScale: state.logScale,
      panelFilter: state.panelFilter,
      pinned: state.pinned,
      combined: state.combined,
      showConstant: state.showConstant,
      poolSeeds: state.poolSeeds,
    });
    if (!state.run) return;
    if (get().primary !== state.run)
      set({ charted: [state.run, ...state.overlays.filter((r) => r !== state.run)].slice(0, MAX_OVERLAY) });
    await get().selectPrimary(state.run);
    await Promise.all(
      get()
        .charted.filter((r) => !get().series[r])
        .map((r) => get().loadSeries(r)),
    );
    if (state.rolloutStep === null || get().primary !== state.run) return;
    await get().openStep(state.rolloutStep);
    if (state.rolloutKey && get().rolloutStep?.step === state.rolloutStep) await get().openRollout(state.rolloutKey);
  },
  watch() {
    const api = getLabApi();
    const offs = [
      api.on('training.rows', ({ runId, fromRow, rows }) => onRows(set, get, runId, fromRow, rows)),
      api.on('training.ended', ({ runId }) => {
        void get().refreshRuns();
        if (runId === get().primary) void get().refreshCheckpoints();
      }),
      api.on('training.progress', (p) => onProgress(set, get, p)),
    ];
    return () => offs.forEach((off) => off());
  },
}));

let smoothingTimer: ReturnType<typeof setTimeout> | null = null;

/** How the charts look: the x axis, smoothing, log scales, hidden groups, the panel search, pins, combined charts, constant panels. */
function chartSettings(set: SetState, get: GetState) {
  return {
    xAxis: 'step',
    smoothing: 0.6,
    logScale: {},
    hiddenGroups: [],
    panelFilter: '',
    pinned: [],
    combined: [],
    showConstant: false,
    poolSeeds: false,
    setPoolSeeds(poolSeeds) {
      set({ poolSeeds });
    },
    addCombined(id) {
      if (!get().combined.includes(id)) set({ combined: [...get().combined, id] });
    },
    removeCombined(id) {
      set({ combined: get().combined.filter((c) => c !== id) });
    },
    setShowConstant(showConstant) {
      set({ showConstant });
    },
    setPanelFilter(panelFilter) {
      set({ panelFilter });
    },
    togglePin(panel) {
      const pinned = get().pinned;
      set({ pinned: pinned.includes(panel) ? pinned.filter((p) => p !== panel) : [...pinned, panel] });
    },
    setXAxis(xAxis) {
      set({ xAxis });
    },
    setSmoothing(smoothing) {
      set({ smoothing });
      // The EMA is computed over every point by the host: ask again, once the slider rests.
      if (smoothingTimer) clearTimeout(smoothingTimer);
      smoothingTimer = setTimeout(() => {
        smoothingTimer = null;
        for (const runId of get().charted) void get().loadSeries(runId);
      }, 200);
    },
    setLog(key, on) {
      set({ logScale: { ...get().logScale, [key]: on } });
    },
    toggleGroup(id) {
      const h = get().hiddenGroups;
      set({ hiddenGroups: h.includes(id) ? h.filter((g) => g !== id) : [...h, id] });
    },
  } satisfies Partial<TrainingState>;
}

/** The runs list, the primary run and the overlays, and their series (followed live). */
function runsAndCharted(set: SetState, get: GetState) {
  return {
    async refreshRuns() {
      try {
        const runs = withLiveProgress(await getLabApi().methods['training.runs']({}), get().live);
        set({ runs, error: null });
        if (!get().primary && runs[0]) await get().selectPrimary(runs[0].id);
      } catch (error) {
        set({ error: message(error) });
      }
    },
    async selectPrimary(runId) {
      const charted = [runId, ...get().charted.filter((r) => r !== runId)].slice(0, MAX_OVERLAY);
      set({
        primary: runId,
        charted,
        rolloutStep: null,
        rollout: null,
        rolloutSteps: [],
        checkpoints: [],
        comparison: null,
      });
      await Promise.all([
        get().loadSeries(runId),
        getLabApi()
          .methods['training.rolloutSteps']({ runId })
          .then(({ steps }) => get().primary === runId && set({ rolloutSteps: steps }))
          .catch(() => undefined),
        get().refreshCheckpoints(),
        getLabApi()
          .methods['training.follow']({ runIds: charted })
          .catch((e: unknown) => set({ error: message(e) })),
      ]);
    },
    async toggleOverlay(runId) {
      const { charted, primary } = get();
      if (runId === primary) return;
      const next = charted.includes(runId)
        ? charted.filter((r) => r !== runId)
        : [...charted, runId].slice(0, MAX_OVERLAY);
      set({ charted: next });
      if (next.includes(runId) && !get().series[runId]) await get().loadSeries(runId);
      await getLabApi()
        .methods['training.follow']({ runIds: next })
        .catch((e: unknown) => set({ error: message(e) }));
    },
    async loadSeries(runId) {
      try {
        const s = await getLabApi().methods['training.series']({
          runId,
          maxPoints: CHART_POINTS,
          smoothing: get().smoothing,
        });
        set({ series: { ...get().series, [runId]: s }, error: null });
      } catch (error) {
        set({ error: message(error) });
      }
    },
    async refreshCheckpoints() {
      const runId = get().primary;
      if (!runId) return;
      try {
        const checkpoints = await getLabApi().methods['training.checkpoints']({ runId });
        if (get().primary === runId) set({ checkpoints });
      } catch (error) {
        set({ error: message(error) });
      }
    },
    async compare(a, b) {
      try {
        set({ comparison: await getLabApi().methods['training.compare']({ a, b }), error: null });
      } catch (error) {
        set({ error: message(error) });
      }
    },
  } satisfies Partial<TrainingState>;
}

/** Starting a run from the page, and pausing, resuming or stopping one this lab's trainer works on. */
function runControl(set: SetState, get: GetState) {
  return {
    async start(request, onAccepted) {
      set({ starting: true, error: null });
      try {
        const { runId } = await getLabApi().methods['training.start'](request, { timeoutMs: 300_000 });
        set({ starting: false });
        onAccepted?.(runId);
        await get().refreshRuns();
        await get().selectPrimary(runId);
        return runId;
      } catch (error) {
        set({ starting: false, error: message(error) });
        return null;
      }
    },
    async control(runId, action) {
      try {
        const api = getLabApi().methods;
        if (action === 'pause') {
          const { paused } = await api['training.pause']({ runId });
          if (!paused)
            set({
              error: `${runId} is not trained by this lab's trainer (started from a shell, or not running): pause it where it runs`,
            });
        } else if (action === 'stop') {
          const { stopping } = await api['training.stop']({ runId });
          if (!stopping)
            set({ error: `${runId} is not trained by this lab's trainer (started from a shell, or not running)` });
        } else {
          await api['training.resume']({ runId }, { timeoutMs: 300_000 });
          await getLabApi()
            .methods['training.follow']({ runIds: get().charted })
            .catch(() => undefined);
        }
        await get().refreshRuns();
      } catch (error) {
        set({ error: message(error) });
      }
    },
  } satisfies Partial<TrainingState>;
}

/** The primary run's rollouts: its steps, one step's rollouts, one rollout, and how tokens are coloured. */
function rolloutViews(set: SetState, get: GetState) {
  return {
    rolloutSteps: [],
    rolloutStep: null,
    rollout: null,
    colourBy: 'advantage',
    async openStep(step) {
      const runId = get().primary;
      if (!runId) return;
      try {
        const rolloutStep = await getLabApi().methods['training.rollouts']({ runId, step });
        set({ rolloutStep, rollout: null, error: null });
      } catch (error) {
        set({ error: message(error) });
      }
    },
    async openRollout(key) {
      const runId = get().primary;
      const step = get().rolloutStep?.step;
      if (!runId || step === undefined) return;
      try {
        set({ rollout: await getLabApi().methods['training.rollout']({ runId, step, key }), error: null });
      } catch (error) {
        set({ error: message(error) });
      }
    },
    closeRollout() {
      set({ rollout: null });
    },
    setColourBy(colourBy) {
      set({ colourBy });
    },
  } satisfies Partial<TrainingState>;
}

/** Live rows of a charted run: appended; a gap, or more points than the chart keeps, reads the series again. */
function onRows(set: SetState, get: GetState, runId: string, fromRow: number, rows: MetricRow[]): void {
  const s = get().series[runId];
  if (!s) return;
  // A gap (rows read before our series arrived, or missed): read the series again.
  if (fromRow > s.rows) return void get().loadSeries(runId);
  const fresh = rows.slice(s.rows - fromRow);
  if (!fresh.length) return;
  const next = appendRows(s, fresh);
  const longest = Math.max(0, ...Object.values(next.series).map((p) => p.raw.length));
  if (longest > 2 * CHART_POINTS) return void get().loadSeries(runId);
  set({ series: { ...get().series, [runId]: next } });
}

/** The trainer's progress is fresher than the files: patch the row now, re-read the list when the state moves. */
function onProgress(set: SetState, get: GetState, p: TrainingProgress): void {
  const before = get().live[p.runId];
  set({
    live: { ...get().live, [p.runId]: p },
    runs: get().runs.map((r) => (r.id === p.runId ? withProgress(r, p) : r)),
  });
  if (!before || before.state !== p.state) {
    void get().refreshRuns();
    // A stop or the end writes a checkpoint: list it.
    if (p.runId === get().primary) void get().refreshCheckpoints();
  }
}
