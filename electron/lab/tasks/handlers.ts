/**
 * The `tasks.*` methods of the contract. Listing and reading tasks happen here; audits run in the audit worker
 * (sandboxes and filesystem work stay out of the host): the host routes its progress to the caller's
 * connection and keeps the audit store (the one writer of it).
 */
import type { tasksContract } from '../../ipc/common/contracts/tasks';
import type { AuditReport, TaskSummary } from '../../domain/tasks';
import type { Handlers } from '../../ipc/common/router';
import { auditWorkerContract } from '../../processes/contracts/audit';
import type { HostContext } from '../host-context';
import { AuditStore } from './audit-store';
import { TaskLibrary } from './library';
import { loadTaskSource } from './source';
import { addTaskSource, removeTaskSource } from './task-sources';
import { taskDetail, taskSummary } from './task-view';
import { decodeText, findFile } from './model';
import { LabError } from '../../ipc/common/errors';

/** Largest file text sent to the viewer at once. */
const MAX_FILE_CHARS = 512 * 1024;

export interface TasksServices {
  library: TaskLibrary;
  audits: AuditStore;
  /** The examples folder the audit worker's library uses (default: the built-in one). */
  examplesDir?: string;
}

export function tasksServices(dataDir: string, examplesDir?: string): TasksServices {
  return { library: new TaskLibrary(dataDir, examplesDir), audits: AuditStore.in(dataDir), examplesDir };
}

export function tasksHandlers(
  ctx: HostContext,
  services: TasksServices = tasksServices(ctx.dataDir),
): Handlers<typeof tasksContract> {
  const { library, audits } = services;
  const lastAudit = async (source: string, id: string) => {
    const r = await audits.get(source, id);
    return r ? { result: r.result, at: r.at } : null;
  };
  /** Running audits: where their progress goes, and the store writes still pending. */
  const routes = new Map<string, { connectionId: string; saving: Promise<void>[] }>();
  let wired = false;
  const auditWorker = () => {
    const worker = ctx.workers.get('audit', auditWorkerContract);
    if (!wired) {
      wired = true;
      worker.on('audit.progress', (p) => {
        const route = routes.get(p.auditId);
        if (!route) return;
        const r = p.report;
        if (r)
          route.saving.push(
            audits
              .put(r)
              .catch((error) => ctx.log(`could not save the audit of ${r.result.id}: ${(error as Error).message}`)),
          );
        ctx.emitTo(route.connectionId, 'tasks.auditProgress', p);
      });
    }
    return worker;
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

    async 'tasks.audit'(input, call) {
      const route = { connectionId: call.connectionId, saving: [] as Promise<void>[] };
      routes.set(input.auditId, route);
      try {
        const request = {
          ...input,
          dataDir: ctx.dataDir,
          ...(services.examplesDir ? { examplesDir: services.examplesDir } : {}),
        };
        // No timeout: an audit of many tasks takes as long as it takes; the caller's cancel reaches the worker.
        const result = await auditWorker().call('audit.run', request, { signal: call.signal });
        await Promise.all(route.saving);
        const reports: AuditReport[] = result.reports;
        return { auditId: result.auditId, reports };
      } finally {
        routes.delete(input.auditId);
      }
    },

    async 'tasks.file'({ source, id, path }) {
      const file = findFile(await library.find(source, id), path);
      if (!file) throw new LabError('NOT_FOUND', `task '${id}' has no file ${path}`);
      const text = decodeText(file.data);
      return {
        path,
        bytes: file.data.byteLength,
        text: text === null ? null : text.slice(0, MAX_FILE_CHARS),
        truncated: text !== null && text.length > MAX_FILE_CHARS,
      };
    },

    async 'tasks.audits'() {
      return audits.all();
    },

    async 'tasks.addSource'({ path }) {
      let tasks = 0;
      const added = await addTaskSource(
        ctx.dataDir,
        path,
        async (p) => (tasks = (await loadTaskSource(p)).tasks.length),
        services.examplesDir,
      );
      await library.load(true);
      return { added, tasks };
    },

    async 'tasks.removeSource'({ path }) {
      const added = removeTaskSource(ctx.dataDir, path);
      await library.load(true);
      return { added };
    },
  };
}
