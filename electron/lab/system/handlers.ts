/** The `system.*` methods of the contract. */
import type { Handlers } from '../../ipc/common/router';
import type { systemContract } from '../../ipc/common/contracts/system';
import type { HostContext } from '../host-context';
import { runDoctor } from './doctor';
import { checkAllHosts } from '../hosts/check';
import { probeOnnxruntimeInWorker } from './probe-onnxruntime';

export function systemHandlers(ctx: HostContext): Handlers<typeof systemContract> {
  return {
    'system.doctor': () =>
      runDoctor({ dataDir: ctx.dataDir, probeOnnxruntime: (gpu) => probeOnnxruntimeInWorker(ctx.workers, gpu) }),
    'system.workers': () => ctx.workers.list(),
    'system.hosts': () => checkAllHosts(ctx.dataDir),
    'system.ping': ({ echo }) => ({ echo: echo ?? null, at: new Date().toISOString() }),
  };
}
