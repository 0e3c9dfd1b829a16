/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * The work ran and reported its result, but the result is a failure (invalid tasks, a failed audit):
 * exit 1, printing the message (if any) without a stack. The command has already printed its report.
 */
export class WorkFailed extends Error {
  override readonly name = 'WorkFailed';
}

/** Not a failure of t1lab: the command ran and this is its exit status (e.g. `sandbox run` mirrors its command). */
export class ExitStatus extends Error {
  override readonly name = 'ExitStatus';
  constructor(readonly status: number) {
    super(`exit status ${status}`);
  }
}
