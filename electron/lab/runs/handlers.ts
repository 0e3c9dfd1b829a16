/**
 * The `runs.*` methods: results are read from the run folders here; evaluations run in the eval worker,
 * whose progress, finished episodes and terminal bytes are forwarded to the UI as `runs.*` events.
 */
import { isAbsolute, resolve } from 'node:path';
import type { runsContract } from '../../ipc/common/contracts/runs';
import type { Handlers } from '../../ipc/common/router';
import type { RunProgress } from '../../domain/runs';
import { evalWorkerContract } from '../../processes/contracts/eval';
import { appRoot } from '../app-paths';
import type { HostContext } from '../host-context';
import { listRuns, readEpisode, readRecording, readRun, runPath } from './library';
import { taskHistory, taskPassRates } from './task-history';
import { removeRun, updateRunMeta } from './meta';
import { policyWorker } from '../models/policy-engine';
import { servePolicyBridge } from './policy-bridge';
import { runSystem } from './system-log';

/** Starting an evaluation loads its suite and policy first: give it time. */
const START_TIMEOUT_MS = 120_000;

export function runsHandlers(ctx: HostContext): Handlers<typeof runsContract> {
  const progress = new Map<string, RunProgress>();
  let wired = false;
  const worker = () => {
    const w = ctx.workers.get('eval', evalWorkerContract);
    if (!wired) {
      wired = true;
      w.on('eval.progress', (p) => {
        progress.set(p.runId, p);
        ctx.emit('runs.progress', p);
      });
      w.on('eval.episode', (e) => ctx.emit('runs.episode', e));
      w.on('eval.terminal', (t) => ctx.emit('runs.terminal', t));
      // onnx: policies of evaluations run in the host's one policy worker (shared with the Models page).
      servePolicyBridge(w, policyWorker(ctx.workers), (m) => ctx.log(m));
      // A worker that dies takes its evaluations with it: say so rather than show them running forever.
      w.onStatus((status) => {
        if (status.state !== 'crashed' && status.state !== 'failed') return;
        for (const p of progress.values()) {
          if (p.state !== 'running') continue;
          const failed: RunProgress = {
            ...p,
            state: 'failed',
            running: [],
            message: `the eval worker ended (${status.lastExit ?? 'unknown'}); resume the run to finish it`,
          };
          progress.set(p.runId, failed);
          ctx.emit('runs.progress', failed);
        }
      });
    }
    return w;
  };
  const active = () => new Set([...progress.values()].filter((p) => p.state === 'running').map((p) => p.runId));
  // The UI's paths are relative to the app (tasks/examples), not to wherever the host was started.
  const fromApp = (path: string) => (isAbsolute(path) ? path : resolve(appRoot(), path));

  return {
    'runs.list': () => listRuns(ctx.dataDir, active()),
    'runs.get': ({ runId }) => ({ ...readRun(runPath(ctx.dataDir, runId)), progress: progress.get(runId) ?? null }),
    'runs.start': (request) =>
      worker().call(
        'eval.start',
        {
          request: { ...request, suite: fromApp(request.suite), ...(request.out ? { out: fromApp(request.out) } : {}) },
          dataDir: ctx.dataDir,
        },
        { timeoutMs: START_TIMEOUT_MS },
      ),
    'runs.resume': ({ runId }) =>
      worker().call(
        'eval.resume',
        { runDir: runPath(ctx.dataDir, runId), dataDir: ctx.dataDir },
        { timeoutMs: START_TIMEOUT_MS },
      ),
    'runs.cancel': async ({ runId }) =>
      active().has(runId) ? worker().call('eval.cancel', { runId }) : { cancelled: false },
    'runs.live': async ({ runId }) => (active().has(runId) ? worker().call('eval.live', { runId }) : { episodes: [] }),
    'runs.episode': ({ runId, key }) => readEpisode(runPath(ctx.dataDir, runId), key),
    'runs.taskHistory': ({ taskId, filter }) => taskHistory(ctx.dataDir, taskId, filter),
    'runs.taskPassRates': ({ filter }) => taskPassRates(ctx.dataDir, filter),
    'runs.setMeta': ({ runId, patch }) => updateRunMeta(ctx.dataDir, runId, patch),
    'runs.remove': ({ runId }) => removeRun(ctx.dataDir, runId, active()),
    'runs.system': ({ runId }) => runSystem(runPath(ctx.dataDir, runId)),
    'runs.recording': ({ runId, key }) => readRecording(runPath(ctx.dataDir, runId), key),
  };
}
