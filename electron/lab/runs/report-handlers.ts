/** The `reports.*` methods: the saved reports of the data folder (reports.ts). */
import type { reportsContract } from '../../ipc/common/contracts/reports';
import type { Handlers } from '../../ipc/common/router';
import type { HostContext } from '../host-context';
import { createReport, getReport, listReports, removeReport, renameReport, updateReport } from './reports';

export function reportsHandlers(ctx: HostContext): Handlers<typeof reportsContract> {
  return {
    'reports.list': () => listReports(ctx.dataDir),
    'reports.get': ({ id }) => getReport(ctx.dataDir, id),
    'reports.create': ({ name, content }) => createReport(ctx.dataDir, name, content),
    'reports.update': ({ id, content }) => updateReport(ctx.dataDir, id, content),
    'reports.rename': ({ id, name }) => renameReport(ctx.dataDir, id, name),
    'reports.remove': ({ id }) => removeReport(ctx.dataDir, id),
  };
}
