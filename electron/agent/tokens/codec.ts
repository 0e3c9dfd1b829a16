/**
 * What the harness needs of a tokenizer: text to ids and back, exactly. Special tokens written in the text
 * (`<|im_start|>`...) are recognised; nothing is added (no BOS): chat templates write what they need.
 * The engine's tokenizer (native/model/tokenizer) satisfies it; so does `hfCodec` over @huggingface/tokenizers.
 */
import { Tokenizer } from '@huggingface/tokenizers';

export interface TokenCodec {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

/** A codec over a Hugging Face `tokenizer.json` (and optionally its tokenizer_config.json). */
export function hfCodec(tokenizerJson: object, tokenizerConfig: object = {}): TokenCodec {
  const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  return {
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids,
    decode: (ids) => tokenizer.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
  };
}
