/** The System page's data: the host's doctor report and the live state of its workers. */
import { create } from 'zustand';
import type { DoctorReport, EngineHostReport, WorkerStatus } from '../../../electron/domain/system';
import { getLabApi } from '../lab/api';

interface SystemState {
  report: DoctorReport | null;
  loading: boolean;
  error: string | null;
  workers: WorkerStatus[];
  /** The engine hosts of `t1lab hosts`, asked at each refresh (null until asked; a host's failure is in its row). */
  hosts: EngineHostReport[] | null;
  hostsError: string | null;
  refresh(): Promise<void>;
  watchWorkers(): () => void;
}

export const useSystem = create<SystemState>((set, get) => ({
  report: null,
  loading: false,
  error: null,
  workers: [],
  hosts: null,
  hostsError: null,
  async refresh() {
    if (get().loading) return;
    set({ loading: true, error: null });
    try {
      const lab = getLabApi();
      const report = await lab.methods['system.doctor']({});
      // Asked after the doctor: its probe worker must be in the list (live events keep it current after).
      const workers = await lab.methods['system.workers']({});
      set({ report, workers, loading: false });
      // Hosts answer (or time out) on their own; the report is shown meanwhile.
      await lab.methods['system.hosts']({}).then(
        (hosts) => set({ hosts, hostsError: null }),
        (error: Error) => set({ hostsError: error.message }),
      );
    } catch (error) {
      set({ loading: false, error: (error as Error).message });
    }
  },
  watchWorkers() {
    return getLabApi().on('system.worker', (status) => {
      const others = get().workers.filter((w) => w.name !== status.name);
      set({ workers: [...others, status].sort((a, b) => a.name.localeCompare(b.name)) });
    });
  },
}));
