/**
 * The Runs page's data: the list of runs, the selected run (results, progress), live terminal bytes of its
 * running episodes, and the episode opened for inspection. Everything comes from the host through `getLabApi()`.
 */
import { create, type StoreApi } from 'zustand';
import type {
  EpisodeRecord,
  EvalRequest,
  RunListing,
  RunManifest,
  RunProgress,
  RunStats,
} from '../../../electron/domain/runs';
import type { Trajectory } from '../../../electron/domain/trajectory';
import { getLabApi } from '../lab/api';

export interface RunDetail {
  manifest: RunManifest;
  episodes: EpisodeRecord[];
  stats: RunStats;
  progress: RunProgress | null;
}

export interface OpenEpisode {
  runId: string;
  key: string;
  record: EpisodeRecord | null;
  trajectory: Trajectory;
  verifierOutput: string | null;
  hasRecording: boolean;
}

type TerminalListener = (data: string) => void;
const terminalListeners = new Map<string, Set<TerminalListener>>();
const terminalKey = (runId: string, key: string) => `${runId}\u0000${key}`;

/** Follow one episode's terminal bytes (after drawing its `runs.live` buffer). */
export function onTerminal(runId: string, key: string, listener: TerminalListener): () => void {
  const k = terminalKey(runId, key);
  const set = terminalListeners.get(k) ?? new Set();
  set.add(listener);
  terminalListeners.set(k, set);
  return () => set.delete(listener);
}

interface RunsState {
  runs: RunListing[];
  selected: string | null;
  detail: RunDetail | null;
  /** Live progress per run id, from `runs.progress`. */
  progress: Record<string, RunProgress>;
  episode: OpenEpisode | null;
  /** What the last action (cancel, resume, open an episode) failed with; stays until dismissed. */
  error: string | null;
  /** Why the run list could not be read; cleared by the next refresh that works. */
  listError: string | null;
  starting: boolean;
  /** The run just started from the form: its detail scrolls into view once (then null). */
  reveal: string | null;
  revealed(): void;
  dismissError(): void;
  refreshList(): Promise<void>;
  select(runId: string | null): Promise<void>;
  refreshDetail(): Promise<void>;
  /** Start an evaluation; the form shows a failure next to the field it concerns. */
  start(request: EvalRequest): Promise<{ runId: string } | { error: unknown }>;
  cancel(runId: string): Promise<void>;
  resume(runId: string): Promise<void>;
  openEpisode(runId: string, key: string): Promise<void>;
  closeEpisode(): void;
  /** Subscribe to the host's run events; returns the unsubscribe. */
  watch(): () => void;
}

const message = (error: unknown) => (error as Error).message ?? String(error);

export const useRuns = create<RunsState>((set, get) => ({
  runs: [],
  selected: null,
  detail: null,
  progress: {},
  episode: null,
  error: null,
  listError: null,
  starting: false,
  reveal: null,
  revealed() {
    set({ reveal: null });
  },
  dismissError() {
    set({ error: null });
  },
  async refreshList() {
    try {
      set({ runs: await getLabApi().methods['runs.list']({}), listError: null });
    } catch (error) {
      set({ listError: message(error) });
    }
  },
  async select(runId) {
    set({ selected: runId, detail: null, episode: null });
    if (runId) await get().refreshDetail();
  },
  async refreshDetail() {
    const runId = get().selected;
    if (!runId) return;
    try {
      const detail = await getLabApi().methods['runs.get']({ runId });
      if (get().selected === runId) set({ detail });
    } catch (error) {
      set({ error: message(error) });
    }
  },
  async start(request) {
    set({ starting: true });
    try {
      const { runId } = await getLabApi().methods['runs.start'](request);
      set({ starting: false, reveal: runId });
      await get().refreshList();
      await get().select(runId);
      return { runId };
    } catch (error) {
      set({ starting: false });
      return { error };
    }
  },
  async cancel(runId) {
    try {
      await getLabApi().methods['runs.cancel']({ runId });
    } catch (error) {
      set({ error: message(error) });
    }
  },
  async resume(runId) {
    try {
      await getLabApi().methods['runs.resume']({ runId });
      await get().refreshList();
      await get().refreshDetail();
    } catch (error) {
      set({ error: message(error) });
    }
  },
  async openEpisode(runId, key) {
    try {
      const view = await getLabApi().methods['runs.episode']({ runId, key });
      set({ episode: { runId, key, ...view }, error: null });
    } catch (error) {
      set({ error: message(error) });
    }
  },
  closeEpisode() {
    set({ episode: null });
  },
  watch: () => watchRuns(set, get),
}));

/** The host's run events into the store: progress, finished episodes (a refresh soon after), terminal bytes. */
function watchRuns(set: StoreApi<RunsState>['setState'], get: StoreApi<RunsState>['getState']): () => void {
  const api = getLabApi();
  let detailTimer: ReturnType<typeof setTimeout> | null = null;
  // Finished episodes change the results: refresh them, at most a few times a second.
  const refreshSoon = () => {
    if (detailTimer) return;
    detailTimer = setTimeout(() => {
      detailTimer = null;
      void get().refreshDetail();
      void get().refreshList();
    }, 300);
  };
  const offs = [
    api.on('runs.progress', (p) => {
      set({ progress: { ...get().progress, [p.runId]: p } });
      if (p.state !== 'running') refreshSoon();
    }),
    api.on('runs.episode', ({ runId }) => {
      if (runId === get().selected) refreshSoon();
    }),
    api.on('runs.terminal', ({ runId, key, data }) => {
      for (const l of terminalListeners.get(terminalKey(runId, key)) ?? []) l(data);
    }),
  ];
  return () => {
    if (detailTimer) clearTimeout(detailTimer);
    for (const off of offs) off();
  };
}
