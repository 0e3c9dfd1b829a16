import { z } from 'zod';
import { defineContract, method } from '../define';
import { ModelList, PlaygroundRequest, PlaygroundResult } from '../../../domain/models';

export const modelsContract = defineContract({
  methods: {
    'models.list': method(
      z.object({ roots: z.array(z.string().max(4096)).max(16).default([]) }),
      ModelList,
      'List checkpoints under the data dir (and extra folders): config, size, hashes, provider.',
    ),
    'models.sample': method(PlaygroundRequest, PlaygroundResult, 'Sample from a checkpoint in the policy worker: tokens with log-probs and routing.'),
  },
  events: {},
});
