/** The `tasks.*` methods of the contract. */
import type { tasksContract } from '../../ipc/common/contracts/tasks';
import type { AuditReport, TaskSummary } from '../../domain/tasks';
import type { Handlers } from '../../ipc/common/router';
import type { HostContext } from '../host-context';
import { auditTasks, invalidAudit, type AuditOutcome } from './audit';
import { AuditStore } from './audit-store';
import { TaskLibrary } from './library';
import type { Task } from './model';
import { taskDetail, taskSummary } from './task-view';
import { decodeText, findFile } from './model';
import { LabError } from '../../ipc/common/errors';

/** Largest file text sent to the viewer at once. */
const MAX_FILE_CHARS = 512 * 1024;

export interface TasksServices {
  library: TaskLibrary;
  audits: AuditStore;
}

export function tasksServices(dataDir: string, examplesDir?: string): TasksServices {
  return { library: new TaskLibrary(dataDir, examplesDir), audits: AuditStore.in(dataDir) };
}

const DEFAULT_AUDIT_CONCURRENCY = 2;

function report(source: string, outcome: AuditOutcome): AuditReport {
  return { source, result: outcome.result, oracle: outcome.oracle, noop: outcome.noop, oracleAgain: outcome.oracleAgain, durationMs: outcome.durationMs, at: new Date().toISOString() };
}

export function tasksHandlers(ctx: HostContext, services: TasksServices = tasksServices(ctx.dataDir)): Handlers<typeof tasksContract> {
  const { library, audits } = services;
  const lastAudit = async (source: string, id: string) => {
    const r = await audits.get(source, id);
    return r ? { result: r.result, at: r.at } : null;
  };

  return {
    async 'tasks.list'({ refresh }) {
      const loaded = await library.load(refresh ?? false);
      const tasks: TaskSummary[] = [];
      const invalid = [];
      for (const [label, { tasks: source }] of loaded) {
        for (const task of source.tasks) tasks.push(taskSummary(task, label, await lastAudit(label, task.id)));
        for (const bad of source.invalid) invalid.push({ id: bad.id, source: label, problems: bad.problems });
      }
      return { tasks, invalid, sources: [...loaded.values()].map((e) => e.source) };
    },

    async 'tasks.get'({ source, id }) {
      return taskDetail(await library.find(source, id), source, await lastAudit(source, id));
    },

    async 'tasks.audit'({ tasks: refs, auditId, concurrency }, call) {
      const loaded = await library.load();
      const chosen: { source: string; task: Task }[] = [];
      const reports: AuditReport[] = [];
      for (const ref of refs) {
        const entry = loaded.get(ref.source);
        const task = entry?.tasks.tasks.find((t) => t.id === ref.id);
        if (task) chosen.push({ source: ref.source, task });
        else {
          const bad = entry?.tasks.invalid.find((t) => t.id === ref.id);
          const outcome = bad ? invalidAudit(bad) : invalidAudit({ id: ref.id, origin: { kind: 'folder', path: ref.source }, problems: [{ file: ref.source, field: null, reason: `no task '${ref.id}' in source '${ref.source}'`, severity: 'error' }] });
          reports.push(report(ref.source, outcome));
        }
      }
      const total = chosen.length;
      const emit = (payload: Parameters<typeof ctx.emitTo<'tasks.auditProgress'>>[2]) => ctx.emitTo(call.connectionId, 'tasks.auditProgress', payload);
      const saving: Promise<void>[] = [];
      emit({ auditId, done: 0, total, current: null, report: null });
      const outcomes = await auditTasks(
        chosen.map((c) => c.task),
        {
          signal: call.signal,
          concurrency: concurrency ?? DEFAULT_AUDIT_CONCURRENCY,
          onProgress: (e) => {
            if (!e.finished) return emit({ auditId, done: e.done, total, current: e.current, report: null });
            const r = report(chosen[e.index]?.source ?? '', e.finished);
            saving.push(audits.put(r).catch((error) => ctx.log(`could not save the audit of ${r.result.id}: ${(error as Error).message}`)));
            emit({ auditId, done: e.done, total, current: null, report: r });
          },
        },
      );
      await Promise.all(saving);
      reports.push(...outcomes.map((o, i) => report(chosen[i]?.source ?? '', o)));
      return { auditId, reports };
    },

    async 'tasks.file'({ source, id, path }) {
      const file = findFile(await library.find(source, id), path);
      if (!file) throw new LabError('NOT_FOUND', `task '${id}' has no file ${path}`);
      const text = decodeText(file.data);
      return { path, bytes: file.data.byteLength, text: text === null ? null : text.slice(0, MAX_FILE_CHARS), truncated: text !== null && text.length > MAX_FILE_CHARS };
    },

    async 'tasks.audits'() {
      return audits.all();
    },
  };
}
