/**
 * The saved reports as the Runs page shows them: the list (and the report files that cannot be read), and
 * saving, renaming and removing through the host (`reports.*`, the files of `t1lab runs reports`). Each
 * action returns what the host answered, or null with `error` set to the host's message in the user's words
 * (a duplicate name, a damaged file); the list is re-read after every change.
 */
import { create } from 'zustand';
import type { ReportContent, ReportProblem, SavedReport } from '../../../electron/domain/reports';
import { getLabApi } from '../lab/api';
import { userError } from '../lab/errors';

interface ReportsState {
  reports: SavedReport[];
  problems: ReportProblem[];
  /** What the last action failed with; cleared by the next one that works, or dismissed. */
  error: string | null;
  refresh(): Promise<void>;
  get(id: string): Promise<SavedReport | null>;
  create(name: string, content: ReportContent): Promise<SavedReport | null>;
  update(id: string, content: ReportContent): Promise<SavedReport | null>;
  rename(id: string, name: string): Promise<SavedReport | null>;
  remove(id: string): Promise<boolean>;
  dismissError(): void;
}

export const useReports = create<ReportsState>((set, getState) => {
  const api = () => getLabApi().methods;
  /** Run an action; on success re-read the list, on failure keep the error. */
  const act = async <T>(work: () => Promise<T>, reread = true): Promise<T | null> => {
    try {
      const out = await work();
      set({ error: null });
      if (reread) await getState().refresh();
      return out;
    } catch (error) {
      set({ error: userError(error).message });
      return null;
    }
  };
  return {
    reports: [],
    problems: [],
    error: null,
    async refresh() {
      try {
        const list = await api()['reports.list']({});
        set({ reports: list.reports, problems: list.problems });
      } catch (error) {
        set({ error: `Cannot list the saved reports: ${userError(error).message}` });
      }
    },
    get: (id) => act(() => api()['reports.get']({ id }), false),
    create: (name, content) => act(() => api()['reports.create']({ name, content })),
    update: (id, content) => act(() => api()['reports.update']({ id, content })),
    rename: (id, name) => act(() => api()['reports.rename']({ id, name })),
    remove: async (id) => (await act(() => api()['reports.remove']({ id }))) !== null,
    dismissError: () => set({ error: null }),
  };
});
