/**
 * PPO's rollouts on engine hosts (`ppo.hosts`): the container tasks' episodes go through the host pool and
 * `runPlaced` that `eval --hosts` uses (a free slot on a live host, the image loaded there once, a host that
 * fails under an episode left and the episode tried elsewhere). A task's image is resolved on this machine
 * the first time a step samples the task, as an evaluation resolves it; tasks that need no image stay in
 * bubblewrap here.
 */
import { LabError } from '../../ipc/common/errors';
import { containerSettings } from '../containers/settings';
import { needsImage, resolvePhaseRuntime, type PhaseRuntime } from '../containers/runtime';
import { openHostPool, type HostPool } from '../hosts/placement';
import { selectHosts } from '../hosts/store';
import type { Task } from '../tasks';

export interface RolloutHosts {
  pool: HostPool;
  /** The task's container runtime (its image resolved here), or undefined for a task that needs none. */
  runtime(task: Task): Promise<PhaseRuntime | undefined>;
  /** Sweep the hosts (the run's end). */
  close(): Promise<void>;
}

/** `ppo.hosts` as host settings: the names (each must exist) or every enabled host. */
function hostsOf(setting: 'all' | string[], dataDir: string) {
  try {
    const hosts = selectHosts(dataDir, setting === 'all' ? [] : setting);
    if (!hosts.length)
      throw new LabError(
        'INVALID_PARAMS',
        'ppo.hosts = "all": no host is enabled; add one with `t1lab hosts add NAME URL`',
      );
    return hosts;
  } catch (error) {
    if (error instanceof LabError && error.message.startsWith('--hosts'))
      throw new LabError('INVALID_PARAMS', `ppo.hosts${error.message.slice('--hosts'.length)}`);
    throw error;
  }
}

/** The run's hosts, asked and swept, or null when `ppo.hosts` is absent (every episode on this machine). */
export async function openRolloutHosts(
  setting: 'all' | string[] | undefined,
  o: { dataDir: string; runId: string; log(message: string): void },
): Promise<RolloutHosts | null> {
  if (!setting) return null;
  const pool = await openHostPool(hostsOf(setting, o.dataDir), o.dataDir, o.runId, o.log);
  if (!pool) return null;
  const settings = containerSettings({ dataDir: o.dataDir });
  const runtimes = new Map<string, Promise<PhaseRuntime>>();
  return {
    pool,
    runtime(task) {
      if (!needsImage(task)) return Promise.resolve(undefined);
      let runtime = runtimes.get(task.id);
      if (!runtime) {
        runtime = resolvePhaseRuntime(task, settings, { onStage: (stage) => o.log(`${task.id}: ${stage}`) });
        runtimes.set(task.id, runtime);
        runtime.catch(() => runtimes.delete(task.id));
      }
      return runtime;
    },
    close: () => pool.close(),
  };
}
