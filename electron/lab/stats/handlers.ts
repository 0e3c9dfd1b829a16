/** The `stats.*` methods: both read finished results only, so they run in the host (milliseconds of math). */
import type { statsContract } from '../../ipc/common/contracts/stats';
import type { Handlers } from '../../ipc/common/router';
import type { HostContext } from '../host-context';
import { readRun, runPath } from '../runs/library';
import { compareRuns } from './compare';
import { powerAnalysis } from './power';

export function statsHandlers(ctx: HostContext): Handlers<typeof statsContract> {
  const outcomes = (runId: string) => ({ run: runId, episodes: readRun(runPath(ctx.dataDir, runId)).episodes });
  return {
    'stats.compare': ({ runA, runB }) => compareRuns(outcomes(runA), outcomes(runB)),
    'stats.power': (request) => powerAnalysis(request),
  };
}
