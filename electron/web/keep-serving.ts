/**
 * The web host outlives a bug in a request handler: an uncaught exception or unhandled rejection is logged
 * (with its stack) and the process keeps serving, instead of Node's default of exiting, which would end every
 * shell and run the user has open. A sandbox with network access shares the host's loopback, so a task must not
 * be able to take the lab down with a request that reaches an unforeseen path.
 */
export function keepServingOnUncaught(log: (line: string) => void): () => void {
  const describe = (error: unknown) => (error instanceof Error ? (error.stack ?? error.message) : String(error));
  const onException = (error: unknown) => log(`uncaught error (the host keeps serving): ${describe(error)}`);
  const onRejection = (error: unknown) => log(`unhandled rejection (the host keeps serving): ${describe(error)}`);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}
