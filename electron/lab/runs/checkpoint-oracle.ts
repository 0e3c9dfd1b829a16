/**
 * The oracle as a checkpoint's token-level policy, without loading its weights: the checkpoint's tokenizer
 * (with the same chunked codec as its `onnx:` policy), chat template, window and reply budget. What
 * `tasks feasible` measures a suite against; no policy worker starts.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { readModelConfig } from '../../../native/model/policy-checkpoint';
import { loadTokenizerFile } from '../../../native/model/tokenizer';
import { loadChatTemplate } from '../../agent/chat/jinja';
import { onnxReplyBudget } from '../../agent/policy/onnx';
import { createTokenizedOraclePolicy } from '../../agent/policy/tokenized-oracle';
import type { Policy } from '../../agent/policy/types';
import { chunkedCodec, splitTokensOf, type TokenCodec } from '../../agent/tokens/codec';
import { LabError } from '../../ipc/common/errors';

export interface CheckpointOracleOptions {
  /** Completion tokens per turn, as `--max-tokens` sets them for `onnx:` (default: its default). */
  maxTokens?: number;
  /** Leave out the solution's leading `set -…` / `cd /app` lines, as SFT data does (default: keep them). */
  skipPreamble?: boolean;
}

export function checkpointOraclePolicy(checkpoint: string, options: CheckpointOracleOptions = {}): Policy {
  const dir = resolve(checkpoint);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new LabError('NOT_FOUND', `--checkpoint ${checkpoint}: no such checkpoint folder`);
  let config;
  try {
    config = readModelConfig(dir);
  } catch (error) {
    throw new LabError('INVALID_PARAMS', `--checkpoint ${checkpoint}: ${(error as Error).message}`);
  }
  if (!config)
    throw new LabError(
      'INVALID_PARAMS',
      `--checkpoint ${checkpoint}: neither a t1-moe checkpoint nor a published Hugging Face folder (${dir}/config.json)`,
    );
  let tokenizer;
  try {
    tokenizer = loadTokenizerFile(dir);
  } catch (error) {
    throw new LabError('INVALID_PARAMS', `--checkpoint ${checkpoint}: ${(error as Error).message}`);
  }
  const endOfTurnId = tokenizer.special.imEnd;
  if (endOfTurnId === undefined)
    throw new LabError(
      'INVALID_PARAMS',
      `--checkpoint ${checkpoint}: ${dir}/tokenizer.json has no <|im_end|> token to end assistant turns`,
    );
  const plain: TokenCodec = { encode: (t) => tokenizer.encode(t), decode: (ids) => tokenizer.decode(ids) };
  const split = splitTokensOf(JSON.parse(tokenizer.json));
  const contextWindow = config.max_position_embeddings;
  return createTokenizedOraclePolicy({
    codec: split ? chunkedCodec(plain, split) : plain,
    template: loadChatTemplate(dir),
    endOfTurnId,
    contextWindow,
    maxCompletionTokens: onnxReplyBudget(contextWindow, options.maxTokens),
    skipPreamble: options.skipPreamble === true,
  });
}
