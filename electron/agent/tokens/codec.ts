/**
 * What the harness needs of a tokenizer: text to ids and back, exactly. Special tokens written in the text
 * (`<|im_start|>`...) are recognised; nothing is added (no BOS): chat templates write what they need.
 * The engine's tokenizer (native/model/tokenizer) satisfies it; so does `hfCodec` over @huggingface/tokenizers.
 *
 * The TITO ledger tokenizes the whole rendered conversation every turn; `chunkedCodec` makes that cost
 * proportional to what is new: Hugging Face tokenizers cut the text at added tokens first and tokenize each
 * piece alone, so pieces seen before are taken from a cache (exact whenever `splitTokensOf` allows it).
 */
import { Tokenizer } from '@huggingface/tokenizers';

export interface TokenCodec {
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
}

export interface SplitToken {
  content: string;
  id: number;
}

interface AddedTokenJson {
  id: number;
  content: string;
  single_word?: boolean;
  lstrip?: boolean;
  rstrip?: boolean;
  normalized?: boolean;
}

/**
 * The added tokens that cut text into independently tokenized pieces, or null when piecewise tokenization
 * would not be exact (an added token that strips its neighbours or is matched after normalization, or a
 * pre-tokenizer that treats the first piece differently).
 */
export function splitTokensOf(tokenizerJson: unknown): SplitToken[] | null {
  const json = tokenizerJson as { added_tokens?: AddedTokenJson[]; normalizer?: unknown; pre_tokenizer?: unknown };
  const added = json.added_tokens ?? [];
  if (added.some((t) => t.lstrip || t.rstrip || t.single_word || (t.normalized && json.normalizer))) return null;
  if (JSON.stringify(json.pre_tokenizer ?? null).includes('Metaspace')) return null;
  return added.map((t) => ({ content: t.content, id: t.id }));
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Pieces of text between added tokens, each tokenized once; the cache is dropped when it grows large. */
export function chunkedCodec(
  codec: TokenCodec,
  splitTokens: readonly SplitToken[],
  maxCachedPieces = 20_000,
): TokenCodec {
  if (splitTokens.length === 0) return codec;
  const ids = new Map(splitTokens.map((t) => [t.content, t.id]));
  const splitter = new RegExp(
    `(${[...ids.keys()]
      .sort((a, b) => b.length - a.length)
      .map(escape)
      .join('|')})`,
  );
  const cache = new Map<string, number[]>();
  return {
    encode(text) {
      const out: number[] = [];
      for (const piece of text.split(splitter)) {
        if (!piece) continue;
        const special = ids.get(piece);
        if (special !== undefined) {
          out.push(special);
          continue;
        }
        let encoded = cache.get(piece);
        if (!encoded) {
          if (cache.size >= maxCachedPieces) cache.clear();
          encoded = codec.encode(piece);
          cache.set(piece, encoded);
        }
        for (const id of encoded) out.push(id);
      }
      return out;
    },
    decode: (list) => codec.decode(list),
  };
}

/** A codec over a Hugging Face `tokenizer.json` (and optionally its tokenizer_config.json). */
export function hfCodec(tokenizerJson: object, tokenizerConfig: object = {}): TokenCodec {
  const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  const plain: TokenCodec = {
    encode: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids,
    decode: (ids) => tokenizer.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false }),
  };
  const split = splitTokensOf(tokenizerJson);
  return split ? chunkedCodec(plain, split) : plain;
}
