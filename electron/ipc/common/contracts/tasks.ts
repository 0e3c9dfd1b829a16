/** The `tasks.*` methods: the task library (built-in examples and the user's tasks) and its audits. */
import { z } from 'zod';
import { defineContract, method } from '../define';
import { AuditProgress, AuditReport, TaskDetail, TaskListing, TaskRef } from '../../../domain/tasks';

export const tasksContract = defineContract({
  methods: {
    'tasks.list': method(
      z.object({ refresh: z.boolean().optional() }),
      TaskListing,
      'List the tasks of the library (built-in examples, committed suites, $T1LAB_HOME/tasks, added sources, the suites of runs) with their last audit.',
    ),
    'tasks.get': method(TaskRef, TaskDetail, "One task's instruction, declared assertions, oracle solution and files."),
    'tasks.audit': method(
      z.object({
        tasks: z.array(TaskRef).min(1).max(5000),
        /** Chosen by the caller so it can match `tasks.auditProgress` events to this call. */
        auditId: z.string().min(1).max(100),
        concurrency: z.number().int().min(1).max(16).optional(),
      }),
      z.object({ auditId: z.string(), reports: z.array(AuditReport) }),
      'Audit tasks: oracle, no-op and oracle again through the verifier, in sandboxes. Streams tasks.auditProgress.',
    ),
    'tasks.file': method(
      TaskRef.extend({ path: z.string().min(1).max(1000) }),
      z.object({ path: z.string(), bytes: z.number().int(), text: z.string().nullable(), truncated: z.boolean() }),
      'One file of a task (task.toml, tests, environment files) as text; null text for a binary file.',
    ),
    'tasks.audits': method(z.object({}), z.array(AuditReport), 'The last audit of every task on this machine.'),
    'tasks.addSource': method(
      z.object({ path: z.string().max(4096) }),
      z.object({ added: z.array(z.string()), tasks: z.number().int() }),
      'Add a task folder, folder of tasks or pack (absolute, existing, holding a task) to the library (lab settings, taskSources).',
    ),
    'tasks.removeSource': method(
      z.object({ path: z.string().max(4096) }),
      z.object({ added: z.array(z.string()) }),
      'Remove an added task source from the library.',
    ),
  },
  events: {
    'tasks.auditProgress': AuditProgress,
  },
});
