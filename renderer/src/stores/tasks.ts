/** The Tasks page's data: the library listing, filters, the selected task's detail, and running audits. */
import { create, type StoreApi } from 'zustand';
import type {
  AuditProgress,
  AuditReport,
  AuditVerdict,
  TaskDetail,
  TaskListing,
  TaskRef,
  TaskSummary,
} from '../../../electron/domain/tasks';
import type { TaskPassRate, TaskRunFilter } from '../../../electron/domain/runs';
import { DEFAULT_RUN_FILTER, runFacets, type RunFacets } from '../components/tasks/task-run-filter';
import { getLabApi } from '../lab/api';

export const NOT_AUDITED = 'not audited';
/** The family filter's value for tasks that name no family (hand-written tasks). */
export const NO_FAMILY = '(no family)';

export interface TaskFilters {
  category: string;
  difficulty: string;
  source: string;
  /** A task family ([metadata].family), NO_FAMILY, or '' for all. */
  family: string;
  /** An audit verdict, NOT_AUDITED, or '' for all. */
  verdict: string;
  text: string;
}

export interface RunningAudit {
  auditId: string;
  total: number;
  done: number;
  current: { id: string; step: string } | null;
}

interface TasksState {
  listing: TaskListing | null;
  loading: boolean;
  error: string | null;
  filters: TaskFilters;
  selected: TaskRef | null;
  detail: TaskDetail | null;
  detailError: string | null;
  /** The last audit report of each task, by `source/id` (from the host, then updated as audits finish). */
  reports: Record<string, AuditReport>;
  audit: RunningAudit | null;
  auditError: string | null;
  /** Each task id's attempts and resolved episodes over the lab's evaluation runs. */
  passRates: Record<string, TaskPassRate>;
  /** Which runs the pass rates and the history are taken over (policy kind, model, suite). */
  runFilter: TaskRunFilter;
  runFacets: RunFacets;
  setRunFilter(filter: TaskRunFilter): Promise<void>;
  sourceError: string | null;
  addSource(path: string): Promise<boolean>;
  removeSource(path: string): Promise<void>;
  load(refresh?: boolean): Promise<void>;
  setFilter<K extends keyof TaskFilters>(key: K, value: TaskFilters[K]): void;
  select(ref: TaskRef | null): Promise<void>;
  runAudit(refs: TaskRef[]): Promise<void>;
  cancelAudit(): void;
}

export const refKey = (ref: TaskRef) => `${ref.source}/${ref.id}`;

let controller: AbortController | null = null;
let nextAudit = 0;

export function matches(task: TaskSummary, f: TaskFilters, reports: Record<string, AuditReport>): boolean {
  if (f.category && task.category !== f.category) return false;
  if (f.difficulty && (task.difficulty ?? 'unknown') !== f.difficulty) return false;
  if (f.source && task.source !== f.source) return false;
  if (f.family && (task.family ?? NO_FAMILY) !== f.family) return false;
  const verdict: AuditVerdict | typeof NOT_AUDITED =
    reports[refKey(task)]?.result.verdict ?? task.audit?.verdict ?? NOT_AUDITED;
  if (f.verdict && verdict !== f.verdict) return false;
  if (f.text) {
    const needle = f.text.toLowerCase();
    if (![task.id, task.title, ...task.tags].some((s) => s.toLowerCase().includes(needle))) return false;
  }
  return true;
}

export const useTasks = create<TasksState>((set, get) => ({
  listing: null,
  loading: false,
  error: null,
  filters: { category: '', difficulty: '', source: '', family: '', verdict: '', text: '' },
  selected: null,
  detail: null,
  detailError: null,
  reports: {},
  audit: null,
  auditError: null,
  passRates: {},
  runFilter: DEFAULT_RUN_FILTER,
  runFacets: { policies: [], models: [], suites: [] },
  async setRunFilter(runFilter) {
    set({ runFilter });
    const rates = await getLabApi()
      .methods['runs.taskPassRates']({ filter: runFilter })
      .catch(() => []);
    if (get().runFilter === runFilter) set({ passRates: Object.fromEntries(rates.map((r) => [r.taskId, r])) });
  },
  sourceError: null,

  ...sourceActions(set, get),

  async load(refresh = false) {
    if (get().loading) return;
    set({ loading: true, error: null });
    try {
      const lab = getLabApi();
      const [listing, reports, rates, runs] = await Promise.all([
        lab.methods['tasks.list']({ refresh }),
        lab.methods['tasks.audits']({}),
        lab.methods['runs.taskPassRates']({ filter: get().runFilter }).catch(() => []),
        lab.methods['runs.list']({}).catch(() => []),
      ]);
      set({
        listing,
        loading: false,
        reports: Object.fromEntries(reports.map((r) => [refKey({ source: r.source, id: r.result.id }), r])),
        passRates: Object.fromEntries(rates.map((r) => [r.taskId, r])),
        runFacets: runFacets(runs),
      });
    } catch (error) {
      set({ loading: false, error: (error as Error).message });
    }
  },

  setFilter(key, value) {
    set({ filters: { ...get().filters, [key]: value } });
  },

  async select(ref) {
    set({ selected: ref, detail: null, detailError: null });
    if (!ref) return;
    try {
      const detail = await getLabApi().methods['tasks.get'](ref);
      if (get().selected === ref) set({ detail });
    } catch (error) {
      if (get().selected === ref) set({ detailError: (error as Error).message });
    }
  },

  ...auditActions(set, get),
}));

type SetTasks = StoreApi<TasksState>['setState'];
type GetTasks = StoreApi<TasksState>['getState'];

/** The task folders listed besides the built-in ones: adding or removing one reloads the library. */
function sourceActions(set: SetTasks, get: GetTasks): Pick<TasksState, 'addSource' | 'removeSource'> {
  return {
    async addSource(path) {
      set({ sourceError: null });
      try {
        await getLabApi().methods['tasks.addSource']({ path });
      } catch (error) {
        set({ sourceError: (error as Error).message });
        return false;
      }
      await get().load(true);
      return true;
    },

    async removeSource(path) {
      set({ sourceError: null });
      try {
        await getLabApi().methods['tasks.removeSource']({ path });
      } catch (error) {
        set({ sourceError: (error as Error).message });
        return;
      }
      await get().load(true);
    },
  };
}

/** Auditing tasks: one audit at a time, its reports kept as they come, cancelled on request. */
function auditActions(set: SetTasks, get: GetTasks): Pick<TasksState, 'runAudit' | 'cancelAudit'> {
  return {
    async runAudit(refs) {
      if (get().audit || refs.length === 0) return;
      const auditId = `audit-${Date.now()}-${++nextAudit}`;
      controller = new AbortController();
      set({ audit: { auditId, total: refs.length, done: 0, current: null }, auditError: null });
      const lab = getLabApi();
      const stop = lab.on('tasks.auditProgress', (p: AuditProgress) => {
        if (p.auditId !== auditId) return;
        const reports = p.report
          ? { ...get().reports, [refKey({ source: p.report.source, id: p.report.result.id })]: p.report }
          : get().reports;
        set({
          reports,
          audit: { auditId, total: p.total, done: p.done, current: p.current ?? get().audit?.current ?? null },
        });
      });
      try {
        const result = await lab.methods['tasks.audit']({ tasks: refs, auditId }, { signal: controller.signal });
        const reports = { ...get().reports };
        for (const r of result.reports) reports[refKey({ source: r.source, id: r.result.id })] = r;
        set({ reports });
      } catch (error) {
        set({ auditError: (error as Error).message });
      } finally {
        stop();
        controller = null;
        set({ audit: null });
      }
    },

    cancelAudit() {
      controller?.abort();
    },
  };
}
