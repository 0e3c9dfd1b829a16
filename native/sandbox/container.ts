/**
 * The docker/podman backend slot, for tasks that ship an image. This build cannot run it: no engine runs on
 * the machines it was made on, so nothing here could be tested. It detects an engine and says plainly what
 * is and is not available, and every attempt to run fails with ENGINE_UNAVAILABLE and the reason, instead
 * of pretending. `bubblewrap` is the backend that runs sandboxes.
 */
import { execQuiet } from '../util/exec';
import { SandboxError } from './errors';
import type { BackendStatus, PtyProcess, RunResult, SandboxBackend } from './types';

export interface EngineProbe {
  engine: 'docker' | 'podman';
  /** The CLI was found. */
  cli: boolean;
  /** The engine answered (daemon/socket reachable): its server version. */
  serverVersion: string | null;
  detail: string;
}

export async function detectContainerEngine(engine: 'docker' | 'podman'): Promise<EngineProbe> {
  const which = await execQuiet('sh', ['-c', `command -v ${engine}`]);
  if (!which.ok) return { engine, cli: false, serverVersion: null, detail: `${engine} is not installed` };
  const args = engine === 'docker' ? ['version', '--format', '{{.Server.Version}}'] : ['info', '--format', '{{.Version.Version}}'];
  const probe = await execQuiet(engine, args, { timeoutMs: 5_000 });
  if (!probe.ok || !probe.stdout.trim()) {
    return { engine, cli: true, serverVersion: null, detail: `${engine} is installed but no engine answers: ${(probe.stderr.trim().split('\n')[0] ?? '').slice(0, 200)}` };
  }
  return { engine, cli: true, serverVersion: probe.stdout.trim(), detail: `${engine} engine ${probe.stdout.trim()} answers` };
}

export class ContainerBackend implements SandboxBackend {
  constructor(readonly name: 'docker' | 'podman') {}

  async status(): Promise<BackendStatus> {
    const probe = await detectContainerEngine(this.name);
    return {
      name: this.name,
      available: false,
      version: probe.serverVersion,
      hint: probe.serverVersion
        ? `${probe.detail}, but this build has no ${this.name} backend yet (it was built where no engine runs); use the bubblewrap backend`
        : `${probe.detail}; the ${this.name} backend needs a running engine (and is not implemented in this build); use the bubblewrap backend`,
    };
  }

  private async unavailable(): Promise<never> {
    const s = await this.status();
    throw new SandboxError('ENGINE_UNAVAILABLE', `the ${this.name} backend is unavailable`, s.hint);
  }

  run(): Promise<RunResult> {
    return this.unavailable();
  }

  spawnPty(): Promise<PtyProcess> {
    return this.unavailable();
  }
}
