/**
 * The Models page's data: checkpoints as the host lists them, the selected one, and the playground's last
 * sample; with a model picked to run beside it, that model's sample of the same request too.
 */
import { create, type StoreApi } from 'zustand';
import type {
  ModelSummary,
  PlaygroundRequest,
  PlaygroundResult,
  PlaygroundToken,
} from '../../../electron/domain/models';
import { getLabApi } from '../lab/api';
import { userError, type UserError } from '../lab/errors';
import { sampleLanes, stopLanes, withToken, type LaneEvents } from './sample-lanes';

const SAMPLE_LABELS: Record<string, string> = {
  maxTokens: 'Max tokens',
  temperature: 'Temperature',
  topP: 'Top-p',
  topK: 'Top-k',
  seed: 'The seed',
  threads: 'Threads',
  stop: 'Stop sequences',
  prompt: 'The prompt',
  provider: 'The provider',
  alternatives: 'Alternatives',
};

/** The model sampled beside the selected one on the same request (side by side), and its sample. */
export interface BesideLane {
  path: string;
  sample: PlaygroundResult | null;
  /** The tokens of its sample in flight. */
  streamed: PlaygroundToken[];
  /** The id of its sample in flight (what Stop names). */
  sampleId: string | null;
  error: UserError | null;
}

interface ModelsState {
  checkpoints: ModelSummary[];
  roots: string[];
  /** Extra folders to list, kept in the lab's settings by the host. */
  folders: string[];
  folderError: string | null;
  selected: string | null;
  loading: boolean;
  error: string | null;
  sample: PlaygroundResult | null;
  sampling: boolean;
  /** The tokens of the sample in flight, as the policy worker samples them. */
  streamed: PlaygroundToken[];
  /** The id of the sample in flight (what Stop names); null once it has its result, even while the model beside samples on. */
  sampleId: string | null;
  stopping: boolean;
  stopSample(): Promise<void>;
  sampleError: UserError | null;
  /** A second model sampled on the same request, side by side with the selected one; null for one model. */
  beside: BesideLane | null;
  setBeside(path: string | null): void;
  /** Indices of the sampled tokens whose routing the heatmap shows (all when empty). */
  selectedTokens: number[];
  /** List the PPO policy worker's weight snapshots (policy/v-N) too. */
  showSnapshots: boolean;
  setShowSnapshots(on: boolean): void;
  refresh(): Promise<void>;
  addFolder(path: string): Promise<boolean>;
  removeFolder(path: string): Promise<void>;
  clearFolderError(): void;
  clearSampleError(): void;
  select(path: string): void;
  runSample(request: Omit<PlaygroundRequest, 'path'>): Promise<void>;
  toggleToken(index: number, extend: boolean): void;
}

let nextSample = 0;
const newSampleId = () => `sample-${Date.now()}-${++nextSample}`;

type SetModels = StoreApi<ModelsState>['setState'];
type GetModels = StoreApi<ModelsState>['getState'];

export const useModels = create<ModelsState>((set, get) => ({
  checkpoints: [],
  roots: [],
  folders: [],
  folderError: null,
  selected: null,
  loading: false,
  error: null,
  sample: null,
  sampling: false,
  streamed: [],
  sampleId: null,
  stopping: false,
  sampleError: null,
  selectedTokens: [],
  beside: null,
  showSnapshots: false,
  ...listActions(set, get),
  ...sampleActions(set, get),
}));

/** The checkpoint list: listing (with snapshots or not), the extra folders, the selection. */
function listActions(
  set: SetModels,
  get: GetModels,
): Pick<
  ModelsState,
  'setShowSnapshots' | 'refresh' | 'addFolder' | 'removeFolder' | 'clearFolderError' | 'select' | 'setBeside'
> {
  return {
    setBeside(path) {
      set({ beside: path ? { path, sample: null, streamed: [], sampleId: null, error: null } : null });
    },
    setShowSnapshots(showSnapshots) {
      set({ showSnapshots });
      void get().refresh();
    },
    async refresh() {
      set({ loading: true, error: null });
      try {
        const lab = getLabApi();
        const [list, { folders }] = await Promise.all([
          lab.methods['models.list']({ snapshots: get().showSnapshots }),
          lab.methods['models.folders']({}),
        ]);
        const kept = list.checkpoints.some((c) => c.path === get().selected) ? get().selected : null;
        const selected = kept ?? list.checkpoints.find((c) => c.status === 'ok')?.path ?? null;
        set({ checkpoints: list.checkpoints, roots: list.roots, folders, selected, loading: false });
      } catch (error) {
        set({ loading: false, error: userError(error).message });
      }
    },
    async addFolder(path) {
      set({ folderError: null });
      try {
        const { folders } = await getLabApi().methods['models.addFolder']({ path });
        set({ folders });
        await get().refresh();
        return true;
      } catch (error) {
        set({ folderError: userError(error).message });
        return false;
      }
    },
    async removeFolder(path) {
      try {
        const { folders } = await getLabApi().methods['models.removeFolder']({ path });
        set({ folders });
        await get().refresh();
      } catch (error) {
        set({ folderError: userError(error).message });
      }
    },
    clearFolderError() {
      set({ folderError: null });
    },
    select(path) {
      const beside = get().beside;
      set({
        selected: path,
        sample: null,
        sampleError: null,
        selectedTokens: [],
        beside: beside && { ...beside, sample: null, error: null },
      });
    },
  };
}

/** The playground: a sample of the selected model (and the one beside it), stopping it, the tokens picked in it. */
function sampleActions(
  set: SetModels,
  get: GetModels,
): Pick<ModelsState, 'stopSample' | 'clearSampleError' | 'runSample' | 'toggleToken'> {
  return {
    async stopSample() {
      const ids = [get().sampleId, get().beside?.sampleId].filter((id): id is string => !!id);
      if (!ids.length || get().stopping) return;
      set({ stopping: true });
      try {
        await stopLanes(getLabApi(), ids);
      } catch (error) {
        set({ sampleError: userError(error, SAMPLE_LABELS) });
      }
    },
    clearSampleError() {
      set({ sampleError: null });
    },
    async runSample(request) {
      const path = get().selected;
      if (!path) return;
      const sampleId = newSampleId();
      const besidePath = get().beside?.path ?? null;
      const beside: BesideLane | null = besidePath
        ? { path: besidePath, sample: null, streamed: [], sampleId: newSampleId(), error: null }
        : null;
      set({
        sampling: true,
        sample: null,
        sampleError: null,
        streamed: [],
        sampleId,
        stopping: false,
        selectedTokens: [],
        beside,
      });
      // Each model is done (no sample id) once it has its result or its error.
      try {
        const lab = getLabApi();
        const lanes = beside
          ? [
              { path, sampleId },
              { path: beside.path, sampleId: beside.sampleId! },
            ]
          : [{ path, sampleId }];
        await sampleLanes(lab, request, lanes, laneHandlers(set, get));
      } finally {
        set((s) => ({
          sampling: false,
          stopping: false,
          sampleId: null,
          streamed: [],
          beside: s.beside && { ...s.beside, sampleId: null, streamed: [] },
        }));
      }
      if (!get().sampleError) await get().refresh(); // the provider is known once loaded
    },
    toggleToken(index, extend) {
      const current = get().selectedTokens;
      if (extend && current.length) {
        const last = current[current.length - 1]!;
        const [a, b] = last < index ? [last, index] : [index, last];
        const range = Array.from({ length: b - a + 1 }, (_, i) => a + i);
        set({ selectedTokens: [...new Set([...current, ...range])] });
      } else {
        set({ selectedTokens: current.includes(index) ? current.filter((i) => i !== index) : [...current, index] });
      }
    },
  };
}

/** Where a sample's tokens, result and error go: lane 0 is the selected model, lane 1 the one beside it. */
function laneHandlers(set: SetModels, get: GetModels): LaneEvents {
  const setBesideLane = (patch: Partial<BesideLane>) => set((s) => ({ beside: s.beside && { ...s.beside, ...patch } }));
  return {
    token: (lane, index, token) => {
      const s = get();
      if (lane === 0) set({ streamed: withToken(s.streamed, index, token) });
      else if (s.beside) set({ beside: { ...s.beside, streamed: withToken(s.beside.streamed, index, token) } });
    },
    result: (lane, sample) =>
      lane === 0 ? set({ sample, selectedTokens: [], sampleId: null }) : setBesideLane({ sample, sampleId: null }),
    error: (lane, error) =>
      lane === 0
        ? set({ sampleError: userError(error, SAMPLE_LABELS), sampleId: null })
        : setBesideLane({ error: userError(error, SAMPLE_LABELS), sampleId: null }),
  };
}
