/** Statistics between runs: a paired comparison of two evaluations, and power analysis. */
import { z } from 'zod';
import { defineContract, method } from '../define';
import { RunId } from '../../../domain/runs';
import { CompareResult, PowerRequest, PowerResult } from '../../../domain/stats';

export const statsContract = defineContract({
  methods: {
    'stats.compare': method(
      z.object({ runA: RunId, runB: RunId }),
      CompareResult,
      'Compare two runs task by task: paired bootstrap interval of the difference, McNemar exact, reward, per category.',
    ),
    'stats.power': method(
      PowerRequest,
      PowerResult,
      'The minimum detectable difference for N tasks (paired and independent), and the tasks needed for a difference.',
    ),
  },
  events: {},
});
