/**
 * Tokenizers for the lab: any Hugging Face tokenizer.json behind a small typed interface, exact bytes
 * for terminal output, a byte-level BPE trainer that writes tokenizer.json, and a drift probe for TITO.
 */
export type { Tokenizer, EncodeOptions, DecodeOptions, AddedTokenInfo, SpecialTokenIds, RoundTrip } from './types';
export { TokenizerError } from './types';
export { loadTokenizer, loadTokenizerFile, type LoadTokenizerOptions } from './hf-tokenizer';
export { trainBpe, type TrainBpeOptions, type TrainBpeResult } from './bpe-trainer';
export { writeTokenizerFiles } from './write';
export { segmentDrift, type SegmentDrift } from './drift';
export {
  bytesToText,
  textToBytes,
  splitByteEscapes,
  isByteEscape,
  ByteEscapeError,
  BYTE_TO_CHAR,
  CHAR_TO_BYTE,
} from './bytes';
export { CHATML, TOOL_TAGS, DEFAULT_ADDED_TOKENS, type AddedTokenSpec } from './special';
export { QWEN_SPLIT_PATTERN, splitWords } from './pretokenize';
