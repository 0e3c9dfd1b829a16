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
