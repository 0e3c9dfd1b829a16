import { z } from 'zod';
import { defineContract, method } from '../define';
import { DoctorReport, EngineHostReport, WorkerStatus } from '../../../domain/system';

export const systemContract = defineContract({
  methods: {
    'system.doctor': method(
      z.object({}),
      DoctorReport,
      'Report what this machine has: runtimes, sandbox, providers, GPUs.',
    ),
    'system.workers': method(z.object({}), z.array(WorkerStatus), 'List the worker processes and their state.'),
    'system.hosts': method(
      z.object({}),
      z.array(EngineHostReport),
      'Ask each engine host of `t1lab hosts`: reachable, engine and version, rootless, cores, memory, slots, lab containers, task images.',
    ),
    'system.ping': method(
      z.object({ echo: z.string().max(1024).optional() }),
      z.object({ echo: z.string().nullable(), at: z.string() }),
      'Check that the host answers.',
    ),
  },
  events: {
    'system.worker': WorkerStatus,
  },
});
