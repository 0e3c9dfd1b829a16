/** Sandbox errors as the lab's coded errors: what is missing is UNAVAILABLE, what is wrong in the request INVALID_PARAMS. */
import { LabError, type ErrorCode } from '../../ipc/common/errors';
import { SandboxError, type SandboxErrorCode } from '../../../native/sandbox/index';

const CODES: Record<SandboxErrorCode, ErrorCode> = {
  BWRAP_MISSING: 'UNAVAILABLE',
  USERNS_UNAVAILABLE: 'UNAVAILABLE',
  ENGINE_UNAVAILABLE: 'UNAVAILABLE',
  START_FAILED: 'UNAVAILABLE',
  WORKSPACE_MISSING: 'INVALID_PARAMS',
  WORKSPACE_NOT_DIR: 'INVALID_PARAMS',
  WORKSPACE_UNSAFE: 'INVALID_PARAMS',
  BAD_SPEC: 'INVALID_PARAMS',
};

/** A SandboxError becomes a LabError with the same message (fix included); anything else is returned as is. */
export function sandboxErrorToLab(error: unknown): unknown {
  if (error instanceof SandboxError) return new LabError(CODES[error.code], error.message, { sandboxCode: error.code });
  return error;
}
