/**
 * Entry point of the audit worker (see electron/processes/contracts/audit.ts): task audits start sandboxes and
 * do synchronous filesystem work (workspaces, snapshots, the sandbox's /etc on first use), so they run here and
 * never in Electron main or the web host.
 */
import { TaskLibrary } from '../lab/tasks/library';
import { runTaskAudit } from '../lab/tasks/run-audit';
import { auditWorkerContract } from '../processes/contracts/audit';
import { serveWorker } from './rpc-server';

const router = serveWorker('audit', auditWorkerContract, {
  'audit.run': ({ dataDir, examplesDir, ...request }, ctx) =>
    runTaskAudit(new TaskLibrary(dataDir, examplesDir), request, {
      signal: ctx.signal,
      emit: (p) => router.emit('audit.progress', p),
    }),
});
