/**
 * Errors a sandbox backend throws before anything runs: each names what is wrong and how to fix it.
 * (A command that fails or hits a limit is a result, not an error.) The lab maps `code` to its LabError codes.
 */

export type SandboxErrorCode =
  /** bwrap is not installed. */
  | 'BWRAP_MISSING'
  /** bwrap is installed but cannot create user namespaces here. */
  | 'USERNS_UNAVAILABLE'
  /** The workspace path does not exist. */
  | 'WORKSPACE_MISSING'
  /** The workspace path is not a directory. */
  | 'WORKSPACE_NOT_DIR'
  /** The workspace would expose what the sandbox must hide (a home directory, the data dir, the checkout, /). */
  | 'WORKSPACE_UNSAFE'
  /** A spec field is out of range or malformed (the message names the field and value). */
  | 'BAD_SPEC'
  /** A container engine (docker/podman) is not available here. */
  | 'ENGINE_UNAVAILABLE'
  /** The sandbox could not be started for another reason (the message carries bwrap's words). */
  | 'START_FAILED';

export class SandboxError extends Error {
  override readonly name = 'SandboxError';
  constructor(
    readonly code: SandboxErrorCode,
    message: string,
    /** What the user can do about it, or null. */
    readonly hint: string | null = null,
  ) {
    super(hint ? `${message}; ${hint}` : message);
  }
}
