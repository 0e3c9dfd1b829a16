/** One audit request against the task library: what the audit worker runs for `tasks.audit`. */
import type { AuditProgress, AuditReport, TaskRef } from '../../domain/tasks';
import { auditTasks, invalidAudit, type AuditOutcome } from './audit';
import type { TaskLibrary } from './library';
import type { Task } from './model';

const DEFAULT_AUDIT_CONCURRENCY = 2;

export interface AuditRequest {
  tasks: TaskRef[];
  auditId: string;
  concurrency?: number;
}

export function auditReport(source: string, outcome: AuditOutcome): AuditReport {
  return {
    source,
    result: outcome.result,
    oracle: outcome.oracle,
    noop: outcome.noop,
    oracleAgain: outcome.oracleAgain,
    durationMs: outcome.durationMs,
    at: new Date().toISOString(),
  };
}

export async function runTaskAudit(
  library: TaskLibrary,
  { tasks: refs, auditId, concurrency }: AuditRequest,
  options: { signal?: AbortSignal; emit: (progress: AuditProgress) => void },
): Promise<{ auditId: string; reports: AuditReport[] }> {
  const loaded = await library.load();
  const chosen: { source: string; task: Task }[] = [];
  const reports: AuditReport[] = [];
  for (const ref of refs) {
    const entry = loaded.get(ref.source);
    const task = entry?.tasks.tasks.find((t) => t.id === ref.id);
    if (task) chosen.push({ source: ref.source, task });
    else {
      const bad = entry?.tasks.invalid.find((t) => t.id === ref.id);
      const outcome = bad
        ? invalidAudit(bad)
        : invalidAudit({
            id: ref.id,
            origin: { kind: 'folder', path: ref.source },
            problems: [
              {
                file: ref.source,
                field: null,
                reason: `no task '${ref.id}' in source '${ref.source}'`,
                severity: 'error',
              },
            ],
          });
      reports.push(auditReport(ref.source, outcome));
    }
  }
  const total = chosen.length;
  const { emit } = options;
  emit({ auditId, done: 0, total, current: null, report: null });
  const outcomes = await auditTasks(
    chosen.map((c) => c.task),
    {
      signal: options.signal,
      concurrency: concurrency ?? DEFAULT_AUDIT_CONCURRENCY,
      onProgress: (e) => {
        if (!e.finished) return emit({ auditId, done: e.done, total, current: e.current, report: null });
        emit({
          auditId,
          done: e.done,
          total,
          current: null,
          report: auditReport(chosen[e.index]?.source ?? '', e.finished),
        });
      },
    },
  );
  reports.push(...outcomes.map((o, i) => auditReport(chosen[i]?.source ?? '', o)));
  return { auditId, reports };
}
