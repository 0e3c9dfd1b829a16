/**
 * The pre-tokenizer of the vocabularies the lab trains: Qwen2/Qwen3's split pattern (as in their
 * tokenizer.json), then GPT-2's byte-level mapping. The pattern keeps words with one leading non-letter
 * (" ls", "-la"), splits digits one by one (numbers stay compositional), keeps punctuation runs with
 * their trailing newlines ("};\n") and groups newline runs ("\n\n").
 *
 * `QWEN_SPLIT_PATTERN` is the Oniguruma form written into tokenizer.json (what Rust `tokenizers` and
 * @huggingface/tokenizers read); `QWEN_SPLIT_REGEXP` is the same pattern in JavaScript syntax (JS has no
 * inline `(?i:...)` before Node 23, so the contractions list both cases; and JS's `\s` matches U+FEFF while
Oniguruma's is Unicode White_Space, so it is spelled out), used by the trainer to count
 * words. A test checks both split text identically.
 */

export const QWEN_SPLIT_PATTERN =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

export const QWEN_SPLIT_REGEXP =
  /'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\p{White_Space}\p{L}\p{N}]+[\r\n]*|\p{White_Space}*[\r\n]+|\p{White_Space}+(?!\P{White_Space})|\p{White_Space}+/gu;

/** The pre-tokenizer section of a trained tokenizer.json. */
export function qwenPreTokenizer(): Record<string, unknown> {
  return {
    type: 'Sequence',
    pretokenizers: [
      { type: 'Split', pattern: { Regex: QWEN_SPLIT_PATTERN }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    ],
  };
}

/** Split text into pre-tokens (words) as the trained tokenizer will, before the byte-level mapping. */
export function splitWords(text: string): string[] {
  return text.match(QWEN_SPLIT_REGEXP) ?? [];
}
