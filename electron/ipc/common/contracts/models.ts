import { z } from 'zod';
import { defineContract, method } from '../define';
import { ModelList, PlaygroundRequest, PlaygroundResult, PlaygroundTokenEvent } from '../../../domain/models';

export const modelsContract = defineContract({
  methods: {
    'models.list': method(
      z.object({ roots: z.array(z.string().max(4096)).max(16).default([]), snapshots: z.boolean().default(false) }),
      ModelList,
      'List checkpoints under the data dir (and extra folders): config, size, hashes, provider.',
    ),
    'models.folders': method(
      z.object({}),
      z.object({ folders: z.array(z.string()) }),
      'The extra checkpoint folders kept in the lab settings.',
    ),
    'models.addFolder': method(
      z.object({ path: z.string().max(4096) }),
      z.object({ folders: z.array(z.string()), checkpoints: z.number().int() }),
      'Add a checkpoint folder (absolute, existing, holding a checkpoint; compared by real path) to the lab settings.',
    ),
    'models.removeFolder': method(
      z.object({ path: z.string().max(4096) }),
      z.object({ folders: z.array(z.string()) }),
      'Remove a checkpoint folder from the lab settings.',
    ),
    'models.sample': method(
      PlaygroundRequest,
      PlaygroundResult,
      'Sample from a checkpoint in the policy worker: tokens with log-probs and routing; with a sampleId, streams models.sampleToken.',
    ),
    'models.stopSample': method(
      z.object({ sampleId: z.string().min(1).max(100) }),
      z.object({ stopped: z.boolean() }),
      "Stop a streamed sample of this connection in the policy worker; models.sample then returns what was sampled (stopReason 'stopped').",
    ),
  },
  events: {
    'models.sampleToken': PlaygroundTokenEvent,
  },
});
