/** The Models page's data: checkpoints as the host lists them, the selected one, and the playground's last sample. */
import { create } from 'zustand';
import type { ModelSummary, PlaygroundRequest, PlaygroundResult } from '../../../electron/domain/models';
import { getLabApi } from '../lab/api';

interface ModelsState {
  checkpoints: ModelSummary[];
  roots: string[];
  /** Extra folders to list (typed by the user), besides the data dir. */
  extraRoots: string[];
  selected: string | null;
  loading: boolean;
  error: string | null;
  sample: PlaygroundResult | null;
  sampling: boolean;
  sampleError: string | null;
  /** Indices of the sampled tokens whose routing the heatmap shows (all when empty). */
  selectedTokens: number[];
  refresh(): Promise<void>;
  addRoot(path: string): Promise<void>;
  select(path: string): void;
  runSample(request: Omit<PlaygroundRequest, 'path'>): Promise<void>;
  toggleToken(index: number, extend: boolean): void;
}

export const useModels = create<ModelsState>((set, get) => ({
  checkpoints: [],
  roots: [],
  extraRoots: [],
  selected: null,
  loading: false,
  error: null,
  sample: null,
  sampling: false,
  sampleError: null,
  selectedTokens: [],
  async refresh() {
    set({ loading: true, error: null });
    try {
      const list = await getLabApi().methods['models.list']({ roots: get().extraRoots });
      const selected = get().selected ?? list.checkpoints.find((c) => c.status === 'ok')?.path ?? null;
      set({ checkpoints: list.checkpoints, roots: list.roots, selected, loading: false });
    } catch (error) {
      set({ loading: false, error: (error as Error).message });
    }
  },
  async addRoot(path) {
    if (!path.trim() || get().extraRoots.includes(path.trim())) return;
    set({ extraRoots: [...get().extraRoots, path.trim()] });
    await get().refresh();
  },
  select(path) {
    set({ selected: path, sample: null, sampleError: null, selectedTokens: [] });
  },
  async runSample(request) {
    const path = get().selected;
    if (!path) return;
    set({ sampling: true, sampleError: null });
    try {
      const sample = await getLabApi().methods['models.sample']({ ...request, path }, { timeoutMs: 600_000 });
      set({ sample, sampling: false, selectedTokens: [] });
      await get().refresh(); // the provider is known once loaded
    } catch (error) {
      set({ sampling: false, sampleError: (error as Error).message });
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
