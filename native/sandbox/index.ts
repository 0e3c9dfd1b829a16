/**
 * The sandbox layer's front door: `createSandboxBackend()` picks a backend, `defaultLimits()` gives limits
 * to start from. Everything else (task layer, harness, CLI, pty host) goes through these and types.ts.
 */
import { BubblewrapBackend, type BubblewrapOptions } from './bubblewrap';
import { ContainerBackend } from './container';
import type { SandboxBackend } from './types';

export type BackendName = 'bubblewrap' | 'docker' | 'podman';

export function createSandboxBackend(
  name: BackendName = 'bubblewrap',
  options: BubblewrapOptions = {},
): SandboxBackend {
  switch (name) {
    case 'bubblewrap':
      return new BubblewrapBackend(options);
    case 'docker':
    case 'podman':
      return new ContainerBackend(name);
  }
}

export { defaultLimits, validateLimits, describeLimit, LIMIT_RANGES } from './limits';
export { SandboxError, type SandboxErrorCode } from './errors';
export { detectBubblewrap } from './detect';
export { cgroupSupport } from './cgroups';
export { BubblewrapBackend, DEFAULT_RUN_OUTPUT_CHARS } from './bubblewrap';
export * from './container';
export { DEFAULT_WORKDIR } from './bwrap-args';
export { defaultProtectedPaths, checkWorkspace } from './workspace';
export { watchedCount, watchedEver } from './monitor';
export {
  readWorkspaceFile,
  writeWorkspaceFile,
  copyWorkspace,
  WorkspacePathError,
  type CopyReport,
} from './workspace-files';
export type * from './types';
