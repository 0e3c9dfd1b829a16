/** The host's set of supervised workers, reported to the UI as `system.worker` events. */
import type { Contract } from '../ipc/common/define';
import type { WorkerStatus } from '../domain/system';
import type { WorkerLauncher } from '../processes/launcher';
import { workerEntry, type WorkerName } from '../processes/entries';
import { WorkerSupervisor, type RestartPolicy, type SupervisorOptions } from '../processes/supervisor';

export class WorkerRegistry {
  private readonly supervisors = new Map<string, WorkerSupervisor<Contract>>();
  private readonly listeners = new Set<(status: WorkerStatus) => void>();

  constructor(private readonly launcher: WorkerLauncher) {}

  /** The supervisor of a named worker, created (not started) on first use. */
  get<C extends Contract>(
    name: WorkerName,
    contract: C,
    restart?: Partial<RestartPolicy>,
    health?: Pick<SupervisorOptions<C>, 'healthIntervalMs' | 'healthTimeoutMs' | 'startTimeoutMs'>,
  ): WorkerSupervisor<C> {
    let supervisor = this.supervisors.get(name) as WorkerSupervisor<C> | undefined;
    if (!supervisor) {
      supervisor = new WorkerSupervisor({
        spec: { name, ...workerEntry(name) },
        launcher: this.launcher,
        contract,
        restart,
        ...health,
      });
      supervisor.onStatus((status) => {
        for (const l of this.listeners) l(status);
      });
      this.supervisors.set(name, supervisor as unknown as WorkerSupervisor<Contract>);
    }
    return supervisor;
  }

  list(): WorkerStatus[] {
    return [...this.supervisors.values()].map((s) => s.status());
  }

  onStatus(listener: (status: WorkerStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.supervisors.values()].map((s) => s.stop()));
  }
}
