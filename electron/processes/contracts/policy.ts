/**
 * The policy worker: holds onnxruntime sessions of loaded checkpoints and decodes many concurrent requests
 * in batches. A checkpoint is addressed by its folder path; loading twice reuses the session, so the host runs
 * one policy worker and every user of a checkpoint (the Models page, onnx evaluations) shares its weights.
 * Each user loads under its own `holder` name and unloads under it; the session is released with the last.
 */
import { z } from 'zod';
import { defineContract, method } from '../../ipc/common/define';
import { GenerateOptions, GenerateResult, PolicyInfo } from '../../../native/model/policy-api';

export const PolicySettings = z.object({
  provider: z.enum(['auto', 'cpu', 'cuda']).default('auto'),
  intraOpThreads: z.number().int().min(0).max(256).optional(),
  interOpThreads: z.number().int().min(0).max(256).optional(),
  /** Rows decoded together at most. */
  maxBatch: z.number().int().min(1).max(256).default(16),
});
export type PolicySettings = z.input<typeof PolicySettings>;

const Checkpoint = z.string().min(1).max(4096);
const StreamId = z.string().min(1).max(300);

export const PolicyTokenEvent = z.object({
  streamId: z.string(),
  index: z.number().int(),
  id: z.number().int(),
  logprob: z.number(),
  /** The token's text (null without a tokenizer). */
  text: z.string().nullable(),
  alternatives: z.array(z.object({ id: z.number().int(), logprob: z.number(), text: z.string().nullable() })),
});
export type PolicyTokenEvent = z.infer<typeof PolicyTokenEvent>;
/** Who holds a loaded checkpoint (e.g. 'models-page', an engine's id); absent: 'default'. */
const Holder = z.string().min(1).max(200).default('default');

export const policyContract = defineContract({
  methods: {
    'policy.load': method(
      z.object({
        checkpoint: Checkpoint,
        settings: PolicySettings.default({ provider: 'auto', maxBatch: 16 }),
        holder: Holder,
      }),
      PolicyInfo,
      'Load a checkpoint (ours or an external ONNX export) onto the chosen execution provider.',
    ),
    'policy.info': method(
      z.object({ checkpoint: Checkpoint }),
      PolicyInfo,
      'Describe a loaded checkpoint: provider, sizes, stop ids.',
    ),
    'policy.generate': method(
      z.object({
        checkpoint: Checkpoint,
        /** Token ids (the harness's TITO ledger); or `prompt` text, tokenized with the checkpoint's tokenizer. */
        promptIds: z.array(z.number().int().min(0)).max(1_000_000).optional(),
        prompt: z.string().max(1_000_000).optional(),
        options: GenerateOptions,
        /** Also return each sampled token's text (for people; the harness does not need it). */
        withText: z.boolean().default(false),
        /** Stream each token as a `policy.token` event under this id, and let `policy.stop` end the request. */
        streamId: StreamId.optional(),
      }),
      GenerateResult.extend({
        promptIds: z.array(z.number().int()),
        tokenTexts: z.array(z.string()).nullable(),
        /** With withText and alternatives: each sampled position's alternatives' texts, in their order. */
        alternativeTexts: z.array(z.array(z.string())).nullable().optional(),
        seed: z.number().int(),
      }),
      'Sample from a loaded checkpoint: tokens with log-probs and per-layer routing.',
    ),
    'policy.stop': method(
      z.object({ streamId: StreamId }),
      z.object({ stopped: z.boolean() }),
      "End a streamed request after the current step; it resolves with what was sampled (stopReason 'stopped'). False when no such request runs.",
    ),
    'policy.swap': method(
      z.object({ checkpoint: Checkpoint, weights: Checkpoint }),
      PolicyInfo,
      'Swap in the weights of another checkpoint of the same architecture, between decoding steps.',
    ),
    'policy.unload': method(
      z.object({ checkpoint: Checkpoint, holder: Holder }),
      z.object({ unloaded: z.boolean(), holders: z.number().int() }),
      "Drop a holder's hold on a checkpoint; the session is released when no holder is left (`unloaded`).",
    ),
  },
  events: {
    /** One sampled token of a streamed request (routing follows in the result). */
    'policy.token': PolicyTokenEvent,
  },
});
