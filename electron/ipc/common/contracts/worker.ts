/** What every worker answers, whatever else it serves: the supervisor's health check. */
import { z } from 'zod';
import { defineContract, method } from '../define';

export const workerBaseContract = defineContract({
  methods: {
    'worker.ping': method(
      z.object({}),
      z.object({ pid: z.number().int(), uptimeMs: z.number(), rssBytes: z.number() }),
      'Health check: the worker answers with its pid, uptime and memory.',
    ),
  },
  events: {},
});
