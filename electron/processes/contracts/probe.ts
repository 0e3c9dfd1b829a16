/** The probe worker: answers questions that need a native runtime loaded, away from the host's event loop. */
import { z } from 'zod';
import { defineContract, method } from '../../ipc/common/define';
import { ProviderStatus } from '../../domain/system';

export const probeContract = defineContract({
  methods: {
    'probe.onnxruntime': method(
      z.object({ hasNvidiaGpu: z.boolean() }),
      z.object({ version: z.string().nullable(), providers: z.array(ProviderStatus), hint: z.string().nullable() }),
      'Load onnxruntime-node and report its version and execution providers.',
    ),
  },
  events: {},
});
