/**
 * `t1lab sandbox run` and `sandbox shell` as lab services: a sandbox on a given workspace or on a fresh
 * temporary one (removed afterwards), with the lab's error codes.
 */
import { rmSync } from 'node:fs';
import { createShellSession, type SandboxShellSession } from '../../../native/pty/index';
import { createSandboxBackend, defaultLimits, type RunResult, type SandboxLimits } from '../../../native/sandbox/index';
import { sandboxErrorToLab } from './errors';
import { makeOwnedTempDirSync } from '../../../native/util/temp-dirs';

export { describeLimit } from '../../../native/sandbox/index';

export interface SandboxRunRequest {
  argv: string[];
  workspace?: string;
  net: boolean;
  limits: Partial<SandboxLimits>;
  env?: Record<string, string>;
  stdin?: string;
  onOutput?: (stream: 'stdout' | 'stderr', chunk: string) => void;
  signal?: AbortSignal;
}

/** Run one command in a sandbox; without a workspace, in a fresh empty one that is removed afterwards. */
export async function runInSandbox(request: SandboxRunRequest): Promise<RunResult> {
  const temp = request.workspace ? null : makeOwnedTempDirSync('run');
  try {
    const limits = defaultLimits(request.limits);
    return await createSandboxBackend().run(
      { workspace: request.workspace ?? (temp as string), net: request.net, limits, env: request.env },
      request.argv,
      { stdin: request.stdin, onOutput: request.onOutput, signal: request.signal },
    );
  } catch (error) {
    throw sandboxErrorToLab(error);
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}

export interface InteractiveShell {
  session: SandboxShellSession;
  workspace: string;
  limits: SandboxLimits;
  /** Close the session and remove a temporary workspace. */
  close(): Promise<void>;
}

/** An interactive sandboxed shell for a person (no wall-clock deadline unless asked for). */
export async function openInteractiveShell(options: {
  workspace?: string;
  net: boolean;
  limits: Partial<SandboxLimits>;
  cols: number;
  rows: number;
  recordPath?: string;
}): Promise<InteractiveShell> {
  const temp = options.workspace ? null : makeOwnedTempDirSync('shell');
  const workspace = options.workspace ?? (temp as string);
  const removeTemp = () => temp && rmSync(temp, { recursive: true, force: true });
  try {
    const limits = defaultLimits({ wallSeconds: 0, ...options.limits });
    const session = await createShellSession({
      backend: createSandboxBackend(),
      spec: { workspace, net: options.net, limits },
      cols: options.cols,
      rows: options.rows,
      recordPath: options.recordPath,
    });
    return {
      session,
      workspace,
      limits,
      async close() {
        await session.close();
        removeTemp();
      },
    };
  } catch (error) {
    removeTemp();
    throw sandboxErrorToLab(error);
  }
}
