/**
 * The audit worker: task audits (oracle, no-op, oracle again through the verifier, in sandboxes) run here, away
 * from the host's event loop, and stream their progress; the host only routes it and keeps the audit store.
 */
import { z } from 'zod';
import { defineContract, method } from '../../ipc/common/define';
import { AuditProgress, AuditReport, TaskRef } from '../../domain/tasks';

export const auditWorkerContract = defineContract({
  methods: {
    'audit.run': method(
      z.object({
        tasks: z.array(TaskRef).min(1).max(5000),
        auditId: z.string().min(1).max(100),
        concurrency: z.number().int().min(1).max(16).optional(),
        /** The lab's data dir (its tasks/ folder is part of the library) and, for tests, another examples folder. */
        dataDir: z.string(),
        examplesDir: z.string().optional(),
      }),
      z.object({ auditId: z.string(), reports: z.array(AuditReport) }),
      'Audit tasks of the library; streams audit.progress, one report per finished task.',
    ),
  },
  events: {
    'audit.progress': AuditProgress,
  },
});
