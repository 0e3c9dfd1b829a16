/** The Tasks page's pass-rate filter as plain data: its default and the choices the lab's runs offer. */
import { policyKind, type TaskRunFilter } from '../../../../electron/domain/runs';

/**
 * The pass rate is taken over the runs of every policy but the oracle by default: the oracle replays the
 * solution, and pooled with a model it says nothing of the model.
 */
export const DEFAULT_RUN_FILTER: TaskRunFilter = { policy: '!oracle' };

/** The values the pass-rate filter offers: the policy kinds, models (whole specs) and suites of the lab's runs. */
export interface RunFacets {
  policies: string[];
  models: string[];
  suites: string[];
}

export function runFacets(runs: readonly { policy: string; suite: string }[]): RunFacets {
  const sorted = (values: string[]) => [...new Set(values)].sort();
  return {
    policies: sorted(runs.map((r) => policyKind(r.policy))),
    models: sorted(runs.map((r) => r.policy)),
    suites: sorted(runs.map((r) => r.suite)),
  };
}
