/**
 * The oracle as a token-level policy, for SFT data: the same reference commands, but each reply comes
 * back as token ids of a checkpoint's tokenizer (its text, then the end-of-turn token), as if the model
 * had sampled them. The harness then keeps the TITO ledger exactly as it does for `onnx:` in RL: the same
 * chat template, the same compact prompt, the same context budget, so the samples hold exactly the ids and
 * masks the policy will see. The id stays `oracle` (the harness mounts the solution for it).
 */
import type { ChatTemplate } from '../chat/template';
import type { TokenCodec } from '../tokens/codec';
import { createOraclePolicy } from './oracle';
import { wantsCompactPrompt, type Policy, type PolicyEpisode } from './types';

export interface TokenizedOracleOptions {
  codec: TokenCodec;
  template: ChatTemplate;
  /** The id that ends an assistant turn (<|im_end|>): appended to every reply, as a sampler stops on it. */
  endOfTurnId: number;
  /** The window of the model the samples are for (the same budget as its `onnx:` policy). */
  contextWindow: number;
  maxCompletionTokens: number;
  /** Leave out the solution's leading `set -…` / `cd /app` commands (see oracle-preamble.ts). */
  skipPreamble?: boolean;
}

export function createTokenizedOraclePolicy(o: TokenizedOracleOptions): Policy {
  const oracle = createOraclePolicy({ protocol: 'hermes', skipPreamble: o.skipPreamble, callTimeout: false });
  return {
    id: oracle.id,
    protocol: oracle.protocol,
    model: null,
    contextWindow: o.contextWindow,
    maxCompletionTokens: o.maxCompletionTokens,
    compactPrompt: wantsCompactPrompt(o.contextWindow),
    tokenLevel: { codec: o.codec, template: o.template },
    template: o.template,
    async startEpisode(info): Promise<PolicyEpisode> {
      const inner = await oracle.startEpisode(info);
      return {
        async turn(request) {
          const reply = await inner.turn(request);
          const ids = [...o.codec.encode(reply.text), o.endOfTurnId];
          return {
            ...reply,
            tokens: { ids, logprobs: ids.map(() => 0) },
            usage: { prompt: request.promptIds?.length ?? 0, completion: ids.length, cached: 0 },
            finishReason: 'stop',
          };
        },
      };
    },
    close: () => oracle.close(),
  };
}
