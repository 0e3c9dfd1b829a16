/** Ask a short-lived probe worker about onnxruntime: loading the runtime never happens in the host process. */
import { probeContract } from '../../processes/contracts/probe';
import type { WorkerRegistry } from '../worker-registry';
import type { OnnxruntimeProbe } from './doctor';

export async function probeOnnxruntimeInWorker(
  workers: WorkerRegistry,
  hasNvidiaGpu: boolean,
): Promise<OnnxruntimeProbe> {
  const probe = workers.get('probe', probeContract, { mode: 'never' });
  try {
    return await probe.call('probe.onnxruntime', { hasNvidiaGpu }, { timeoutMs: 30_000 });
  } finally {
    await probe.stop();
  }
}
