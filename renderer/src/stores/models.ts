/** The Models page's data: checkpoints as the host lists them, the selected one, and the playground's last sample. */
import { create } from 'zustand';
import type { ModelSummary, PlaygroundRequest, PlaygroundResult, PlaygroundToken } from '../../../electron/domain/models';
import { getLabApi } from '../lab/api';
import { userError, type UserError } from '../lab/errors';

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
  /** The id of the sample in flight (what Stop names). */
  sampleId: string | null;
  stopping: boolean;
  stopSample(): Promise<void>;
  sampleError: UserError | null;
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
  async stopSample() {
    const sampleId = get().sampleId;
    if (!sampleId || get().stopping) return;
    set({ stopping: true });
    try {
      await getLabApi().methods['models.stopSample']({ sampleId });
    } catch (error) {
      set({ sampleError: userError(error, SAMPLE_LABELS) });
    }
  },
  sampleError: null,
  selectedTokens: [],
  showSnapshots: false,
  setShowSnapshots(showSnapshots) {
    set({ showSnapshots });
    void get().refresh();
  },
  async refresh() {
    set({ loading: true, error: null });
    try {
      const lab = getLabApi();
      const [list, { folders }] = await Promise.all([lab.methods['models.list']({ snapshots: get().showSnapshots }), lab.methods['models.folders']({})]);
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
  clearSampleError() {
    set({ sampleError: null });
  },
  select(path) {
    set({ selected: path, sample: null, sampleError: null, selectedTokens: [] });
  },
  async runSample(request) {
    const path = get().selected;
    if (!path) return;
    const sampleId = `sample-${Date.now()}-${++nextSample}`;
    set({ sampling: true, sampleError: null, streamed: [], sampleId, stopping: false, selectedTokens: [] });
    const lab = getLabApi();
    const off = lab.on('models.sampleToken', (e) => {
      if (e.sampleId !== get().sampleId) return;
      const streamed = get().streamed.slice();
      streamed[e.index] = e.token;
      set({ streamed });
    });
    try {
      const sample = await lab.methods['models.sample']({ ...request, path, sampleId }, { timeoutMs: 600_000 });
      set({ sample, sampling: false, selectedTokens: [] });
      await get().refresh(); // the provider is known once loaded
    } catch (error) {
      set({ sampling: false, sampleError: userError(error, SAMPLE_LABELS) });
    } finally {
      off();
      set({ sampleId: null, stopping: false, streamed: [] });
    }
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
}));
