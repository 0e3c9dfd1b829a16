/**
 * The worker process's RPC server (not the `t1lab serve` web host): it serves a contract to the parent over
 * the process channel. Every worker answers `worker.ping`. An uncaught error ends the process with a message
 * (the supervisor reports and restarts it); it never lingers half-alive.
 */
import type { Contract } from '../ipc/common/define';
import { createRouter, type Handlers, type Router } from '../ipc/common/router';
import { createParentConnection } from '../ipc/node/process';
import { withPing, type WithPing } from '../processes/ping';

export function serveWorker<C extends Contract>(name: string, contract: C, handlers: Handlers<C>): Router<WithPing<C>> {
  const started = performance.now();
  const full = withPing(contract);
  const allHandlers = {
    ...handlers,
    'worker.ping': () => ({
      pid: process.pid,
      uptimeMs: performance.now() - started,
      rssBytes: process.memoryUsage.rss(),
    }),
  } as unknown as Handlers<WithPing<C>>;
  const router = createRouter(full, allHandlers, { log: (m) => process.stderr.write(`[${name}] ${m}\n`) });
  const connection = createParentConnection();
  router.attach(connection);
  connection.onClose(() => process.exit(0)); // the parent is gone: nobody to serve
  process.on('uncaughtException', (error) => {
    process.stderr.write(`[${name}] fatal: ${error.stack ?? error.message}\n`);
    process.exit(70);
  });
  process.on('unhandledRejection', (error) => {
    process.stderr.write(
      `[${name}] fatal (unhandled rejection): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(70);
  });
  return router;
}
