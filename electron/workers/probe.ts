/** Entry point of the probe worker (see contracts/probe.ts). */
import { probeProviders } from '../../native/model/providers';
import { probeContract } from '../processes/contracts/probe';
import { serveWorker } from './rpc-server';

serveWorker('probe', probeContract, {
  'probe.onnxruntime': ({ hasNvidiaGpu }) => probeProviders({ hasNvidiaGpu }),
});
