/**
 * The lab's view of a tokenizer: small, typed, and honest about bytes. Implemented over
 * @huggingface/tokenizers for any Hugging Face `tokenizer.json` (see hf-tokenizer.ts).
 */

export interface EncodeOptions {
  /**
   * Apply the tokenizer's post-processor (e.g. a BOS token for Llama-style tokenizers). Default false:
   * the lab renders chat templates itself and tokenizes segments, so nothing is added behind its back.
   */
  addSpecialTokens?: boolean;
  /**
   * Recognise added tokens (`<|im_end|>`, `<tool_call>` ...) written as text. Default true, as Hugging Face
   * does. Pass false for untrusted text such as terminal output: a program that prints `<|im_end|>` then
   * gets the characters, not the control token.
   */
  parseSpecialTokens?: boolean;
}

export interface DecodeOptions {
  /** Drop tokens marked `special` in tokenizer.json (for ChatML: `<|im_start|>`, `<|im_end|>`, `<|endoftext|>`). */
  skipSpecialTokens?: boolean;
}

/** An added token of tokenizer.json: split out of the text before BPE, never merged with its neighbours. */
export interface AddedTokenInfo {
  id: number;
  content: string;
  /** Hugging Face's `special` flag: skipped by `decode(..., {skipSpecialTokens: true})`. */
  special: boolean;
}

/**
 * Ids of the tokens the chat template and the sampler care about, when the vocabulary has them
 * (ChatML as in Qwen; `toolCall*` wrap a tool call's JSON; `endOfText` ends a document / pads).
 */
export interface SpecialTokenIds {
  endOfText?: number;
  imStart?: number;
  imEnd?: number;
  toolCallStart?: number;
  toolCallEnd?: number;
  toolResponseStart?: number;
  toolResponseEnd?: number;
  thinkStart?: number;
  thinkEnd?: number;
  /** From tokenizer_config.json when given, else `<|endoftext|>` when present. */
  pad?: number;
  /** From tokenizer_config.json when given. */
  eos?: number;
  bos?: number;
}

/** How faithfully `decode(encode(text))` gives `text` back. */
export type RoundTrip =
  /** Byte-level, no normalizer, no stripping added tokens: every string comes back exactly. */
  | 'exact'
  /** Byte-level, but a normalizer (e.g. Qwen's NFC) or a stripping added token may change the text. */
  | 'normalized'
  /** Not byte-level (WordPiece, SentencePiece ...): unknown characters and raw bytes may be lost. */
  | 'lossy';

export interface Tokenizer {
  /** One more than the largest id in the vocabulary or the added tokens: rows the embedding needs at least. */
  readonly vocabSize: number;
  /** GPT-2-style byte-level BPE: every byte has a token, so any byte string can be encoded. */
  readonly byteLevel: boolean;
  readonly roundTrip: RoundTrip;
  readonly special: SpecialTokenIds;
  readonly addedTokens: readonly AddedTokenInfo[];
  /** Ids that end an assistant turn when sampled: `<|im_end|>`, `<|endoftext|>`, and eos, those present. */
  readonly stopTokenIds: readonly number[];
  /** The chat template of tokenizer_config.json, when one was given. */
  readonly chatTemplate: string | null;

  /**
   * Text to ids. Raw bytes travel inside the string as byte escapes (U+DC80..U+DCFF, see bytes.ts) and
   * become their byte tokens; they are hard boundaries (no merge spans them). Throws TokenizerError for a
   * string that holds a lone surrogate that is not a canonical byte escape, or for text the vocabulary
   * cannot represent without an unknown token it lacks.
   */
  encode(text: string, options?: EncodeOptions): number[];
  /** Raw bytes (e.g. a terminal's output) to ids: exactly `encode(bytesToText(bytes))`. */
  encodeBytes(bytes: Uint8Array, options?: EncodeOptions): number[];
  /**
   * Ids to text. For byte-level tokenizers bytes that do not form UTF-8 come back as byte escapes, never
   * as U+FFFD, so `decode(encode(s)) === s` whenever `roundTrip` is 'exact'. Throws for an id outside
   * the vocabulary.
   */
  decode(ids: readonly number[], options?: DecodeOptions): string;
  /** Ids to the exact bytes they stand for (byte-level tokenizers only; others throw). */
  decodeBytes(ids: readonly number[], options?: DecodeOptions): Uint8Array;
  /** The bytes of one token (added tokens: their UTF-8 content). Byte-level tokenizers only. */
  tokenBytes(id: number): Uint8Array;
  /** The vocabulary strings of these ids (byte-level tokens in their alphabet, e.g. `Ġhello`). */
  tokens(ids: readonly number[]): string[];
  tokenToId(token: string): number | undefined;
  idToToken(id: number): string | undefined;
  isSpecial(id: number): boolean;
  /** The tokenizer.json text it was made from, to be copied into a checkpoint unchanged. */
  readonly json: string;
}

export class TokenizerError extends Error {
  override readonly name = 'TokenizerError';
}
