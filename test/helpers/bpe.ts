/**
 * A small byte-level BPE tokenizer.json for tests, trained on the spot with the lab's own trainer
 * (native/model/tokenizer), with only the ChatML special tokens added: tool-call tags stay ordinary text, so
 * BPE merges across `}</tool_call>` happen as they do in tokenizers that lack those added tokens.
 */
import { trainBpe } from '../../native/model/tokenizer';
import { CHATML } from '../../native/model/tokenizer/special';

export function trainByteLevelBpe(corpus: string[], options: { merges: number }): object {
  const addedTokens = Object.values(CHATML).map((content) => ({ content, special: true }));
  const trained = trainBpe({
    corpus,
    vocabSize: 256 + options.merges + addedTokens.length,
    minFrequency: 1,
    addedTokens,
  });
  return JSON.parse(trained.json) as object;
}
