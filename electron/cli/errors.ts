/** A mistake in how the command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Not a failure of t1lab: the command ran and this is its exit status (e.g. `sandbox run` mirrors its command). */
export class ExitStatus extends Error {
  override readonly name = 'ExitStatus';
  constructor(readonly status: number) {
    super(`exit status ${status}`);
  }
}
