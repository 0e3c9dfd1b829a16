/** The `onnx:CHECKPOINT` policy over a policy worker: the CLI's own, or the host's (from the eval worker, through the host). */
import { resolve } from 'node:path';
import { loadTokenizerFile } from '../../../native/model/tokenizer';
import { loadChatTemplate } from '../../agent/chat/jinja';
import type { OnnxPolicyEngine } from '../../../native/model/policy-api';
import type { OnnxPolicyFactory } from '../../agent/policy';
import type { Policy } from '../../agent/policy/types';
import { createOnnxPolicy } from '../../agent/policy/onnx';
import { chunkedCodec, splitTokensOf, type TokenCodec } from '../../agent/tokens/codec';
import { LabError } from '../../ipc/common/errors';
import { createOnnxPolicyEngine, type PolicyCaller } from './policy-engine';

export function onnxPolicyFactory(caller: PolicyCaller): OnnxPolicyFactory {
  return async (checkpoint, options) => (await createOnnxPolicyWithEngine(caller, checkpoint, options)).policy;
}

/** The `onnx:` policy and the engine under it (a trainer swaps the engine's weights between steps). */
export async function createOnnxPolicyWithEngine(
  caller: PolicyCaller,
  checkpoint: string,
  options: Parameters<OnnxPolicyFactory>[1],
): Promise<{ policy: Policy; engine: OnnxPolicyEngine }> {
  {
    const dir = resolve(checkpoint);
    let tokenizer;
    try {
      tokenizer = loadTokenizerFile(dir);
    } catch (error) {
      throw new LabError('INVALID_PARAMS', `onnx:${checkpoint}: ${(error as Error).message}`);
    }
    const plain: TokenCodec = { encode: (t) => tokenizer.encode(t), decode: (ids) => tokenizer.decode(ids) };
    const split = splitTokensOf(JSON.parse(tokenizer.json));
    const codec = split ? chunkedCodec(plain, split) : plain;
    const engine = await createOnnxPolicyEngine(caller, dir);
    try {
      const policy = await createOnnxPolicy(
        { checkpoint: dir, engine, codec, template: loadChatTemplate(dir), stopTokenIds: tokenizer.stopTokenIds },
        options,
      );
      return { policy, engine };
    } catch (error) {
      await engine.close();
      throw error;
    }
  }
}
