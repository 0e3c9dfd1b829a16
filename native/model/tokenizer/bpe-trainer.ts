/**
 * A byte-level BPE trainer that writes a standard Hugging Face `tokenizer.json` (GPT-2/Qwen style: Qwen's
 * split pattern, ByteLevel pre-tokenizer and decoder, no normalizer, `vocab` + `merges`, ChatML and tool
 * tags as added tokens).
 *
 * Why by hand: no JS package trains BPE well (the JS tokenizers only encode; the trainers on npm are toy
 * O(merges x corpus) loops or bind the Rust crate natively, which the lab cannot ship offline).
 *
 * How it stays fast (the algorithm of the Rust `tokenizers` BpeTrainer):
 * 1. the corpus is split into words once and identical words are counted together (a few MB of terminal
 *    text has ~10^5 distinct words for ~10^6 occurrences), each word held as an Int32Array of symbol ids;
 * 2. pair counts live in a Map keyed by one number (a * 2^21 + b), each pair with the list of words that
 *    contain it, so a merge visits only the words holding that pair and updates counts by deltas;
 * 3. the best pair comes from a max-heap with lazy invalidation (a popped entry whose count went stale is
 *    re-pushed with its current count; pairs whose count rose are pushed again).
 * So a merge costs time in proportion to its occurrences, not to the corpus. Ties break on the smaller
 * (left, right) ids, so the same corpus always gives the same file.
 *
 * Conventions shared with the encoder (hf-tokenizer.ts): added-token text in the corpus is a boundary and
 * is not learned from; bytes that are not UTF-8 (byte escapes) are single-byte tokens that never merge,
 * so they are left out of the counts.
 */
import { BYTE_LEVEL_ORDER, BYTE_TO_CHAR, bytesToText, splitByteEscapes } from './bytes';
import { qwenPreTokenizer, splitWords } from './pretokenize';
import { CHATML, DEFAULT_ADDED_TOKENS, type AddedTokenSpec } from './special';
import { TokenizerError } from './types';

export interface TrainBpeOptions {
  /** Documents or chunks (strings, or raw bytes such as terminal logs); each is a word boundary. */
  corpus: Iterable<string | Uint8Array>;
  /** Total vocabulary: 256 bytes + merges + added tokens. */
  vocabSize: number;
  /** Stop merging when the most frequent pair occurs fewer times. Default 2. */
  minFrequency?: number;
  /** Added tokens, in id order after the learned vocabulary. Default: ChatML + tool/think tags. */
  addedTokens?: readonly AddedTokenSpec[];
  /** Called every `progressEvery` merges (default 256) and at the end. */
  onProgress?: (progress: { merges: number; targetMerges: number }) => void;
  progressEvery?: number;
}

export interface TrainBpeResult {
  /** The tokenizer.json text (pretty-printed like the Hugging Face files). */
  json: string;
  /** A matching tokenizer_config.json object (eos = <|im_end|>, pad = <|endoftext|>, no cleanup). */
  config: Record<string, unknown>;
  stats: {
    /** Pre-token occurrences counted and distinct words among them. */
    words: number;
    distinctWords: number;
    bytes: number;
    merges: number;
    vocabSize: number;
    /** Why merging stopped. */
    stoppedBy: 'vocab-size' | 'min-frequency';
  };
}

/** Key of a pair of symbol ids; ids stay below 2^21, so keys are exact integers below 2^42. */
const PAIR_SHIFT = 2 ** 21;
const MAX_SYMBOLS = PAIR_SHIFT;

export function trainBpe(options: TrainBpeOptions): TrainBpeResult {
  const addedTokens = options.addedTokens ?? DEFAULT_ADDED_TOKENS;
  const { targetMerges, contents } = checkOptions(options.vocabSize, addedTokens);
  const corpus = countWords(options.corpus, addedTokens);
  const symbols = wordsAsSymbols(corpus.counts);
  const distinctWords = corpus.counts.size;
  corpus.counts.clear();
  const pairs = indexPairs(symbols);
  const { merges, stoppedBy } = learnMerges(symbols, pairs, {
    modelVocabTarget: options.vocabSize - addedTokens.length,
    minFrequency: Math.max(1, options.minFrequency ?? 2),
    addedContents: contents,
    progress: (merges) => options.onProgress?.({ merges, targetMerges }),
    progressEvery: options.onProgress ? (options.progressEvery ?? 256) : 0,
  });
  options.onProgress?.({ merges: merges.length, targetMerges });
  const firstAdded = symbols.strings.length;
  return {
    json: JSON.stringify(tokenizerJson(symbols.strings, merges, addedTokens), null, 2),
    config: tokenizerConfig(addedTokens),
    stats: {
      words: corpus.wordTotal,
      distinctWords,
      bytes: corpus.byteTotal,
      merges: merges.length,
      vocabSize: firstAdded + addedTokens.length,
      stoppedBy,
    },
  };
}

/** The merges the vocabulary size leaves room for, and the added tokens' contents (each non-empty, once). */
function checkOptions(
  vocabSize: number,
  addedTokens: readonly AddedTokenSpec[],
): { targetMerges: number; contents: Set<string> } {
  const targetMerges = vocabSize - 256 - addedTokens.length;
  if (!Number.isInteger(vocabSize) || targetMerges < 0) {
    throw new TokenizerError(
      `vocabSize ${vocabSize} must be an integer of at least 256 bytes + ${addedTokens.length} added tokens = ${256 + addedTokens.length}`,
    );
  }
  if (vocabSize > MAX_SYMBOLS)
    throw new TokenizerError(`vocabSize ${vocabSize} exceeds the trainer's limit of ${MAX_SYMBOLS}`);
  const contents = new Set<string>();
  for (const t of addedTokens) {
    if (!t.content) throw new TokenizerError('an added token has empty content');
    if (contents.has(t.content)) throw new TokenizerError(`added token ${JSON.stringify(t.content)} is listed twice`);
    contents.add(t.content);
  }
  return { targetMerges, contents };
}

/** 1. The corpus's words counted (added-token text is a boundary; byte escapes are left out). */
function countWords(corpus: Iterable<string | Uint8Array>, addedTokens: readonly AddedTokenSpec[]) {
  const counts = new Map<string, number>();
  let wordTotal = 0;
  let byteTotal = 0;
  const splitter = addedTokenSplitter(addedTokens.map((t) => t.content));
  for (const chunk of corpus) {
    const text = typeof chunk === 'string' ? chunk : bytesToText(chunk);
    byteTotal += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    for (const section of splitter(text)) {
      for (const piece of splitByteEscapes(section)) {
        if (piece.kind !== 'text') continue;
        for (const word of splitWords(piece.text)) {
          counts.set(word, (counts.get(word) ?? 0) + 1);
          wordTotal += 1;
        }
      }
    }
  }
  return { counts, wordTotal, byteTotal };
}

/** The vocabulary being learned and the words as symbol arrays (each with its live length and its count). */
interface Symbols {
  /** Symbol id -> its text; the 256 bytes first, in byte-level order. */
  strings: string[];
  idOf: Map<string, number>;
  words: Int32Array[];
  lengths: number[];
  freq: number[];
}

/** 2. Words as symbol arrays; symbol id of byte b is its rank in the byte-level alphabet. */
function wordsAsSymbols(counts: Map<string, number>): Symbols {
  const byteId = new Int32Array(256);
  BYTE_LEVEL_ORDER.forEach((b, rank) => (byteId[b] = rank));
  const strings: string[] = BYTE_LEVEL_ORDER.map((b) => BYTE_TO_CHAR[b] as string);
  const idOf = new Map<string, number>(strings.map((s, id) => [s, id]));
  const encoder = new TextEncoder();
  const words: Int32Array[] = [];
  const lengths: number[] = [];
  const freq: number[] = [];
  for (const [word, count] of counts) {
    const bytes = encoder.encode(word);
    if (bytes.length < 2) continue; // a single byte never merges
    const syms = new Int32Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) syms[i] = byteId[bytes[i] as number] as number;
    words.push(syms);
    lengths.push(bytes.length);
    freq.push(count);
  }
  return { strings, idOf, words, lengths, freq };
}

/** Pair counts, the words each pair occurs in, and the heap that gives the most frequent pair. */
class PairIndex {
  readonly count = new Map<number, number>();
  readonly where = new Map<number, number[]>();
  readonly heap = new PairHeap();

  /** Word `w` holds pair `key` (words are visited in order, so a repeat is the last entry). */
  noteWhere(key: number, w: number): void {
    const list = this.where.get(key);
    if (!list) this.where.set(key, [w]);
    else if (list[list.length - 1] !== w) list.push(w);
  }
}

/** 3. Pair counts and where each pair occurs. */
function indexPairs({ words, lengths, freq }: Symbols): PairIndex {
  const pairs = new PairIndex();
  for (let w = 0; w < words.length; w++) {
    const s = words[w] as Int32Array;
    const f = freq[w] as number;
    for (let i = 0; i + 1 < (lengths[w] as number); i++) {
      const key = (s[i] as number) * PAIR_SHIFT + (s[i + 1] as number);
      pairs.count.set(key, (pairs.count.get(key) ?? 0) + f);
      pairs.noteWhere(key, w);
    }
  }
  for (const [key, count] of pairs.count) pairs.heap.push(key, count);
  return pairs;
}

interface MergeSettings {
  modelVocabTarget: number;
  minFrequency: number;
  addedContents: Set<string>;
  progress: (merges: number) => void;
  /** Report every this many merges (0: never). */
  progressEvery: number;
}

/** 4. Merge the most frequent pair until the vocabulary is full or no pair is frequent enough. */
function learnMerges(
  symbols: Symbols,
  pairs: PairIndex,
  settings: MergeSettings,
): { merges: [string, string][]; stoppedBy: TrainBpeResult['stats']['stoppedBy'] } {
  const { strings, idOf } = symbols;
  const merges: [string, string][] = [];
  const seen = new Int32Array(symbols.words.length).fill(-1);
  while (strings.length < settings.modelVocabTarget) {
    const top = pairs.heap.pop();
    if (!top) return { merges, stoppedBy: 'min-frequency' };
    const current = pairs.count.get(top.key) ?? 0;
    if (current !== top.count) {
      if (current > 0) pairs.heap.push(top.key, current);
      continue;
    }
    if (current < settings.minFrequency) return { merges, stoppedBy: 'min-frequency' };
    const a = Math.floor(top.key / PAIR_SHIFT);
    const b = top.key - a * PAIR_SHIFT;
    const merged = (strings[a] as string) + (strings[b] as string);
    if (settings.addedContents.has(merged)) {
      // Never learn a token spelled like an added token: the two ids would compete for one string.
      pairs.count.delete(top.key);
      continue;
    }
    let n = idOf.get(merged);
    if (n === undefined) {
      n = strings.length;
      strings.push(merged);
      idOf.set(merged, n);
    }
    merges.push([strings[a] as string, strings[b] as string]);
    const mergeIndex = merges.length;
    const delta = mergeInWords(symbols, pairs, top.key, n, seen, mergeIndex);
    applyDeltas(pairs, top.key, delta);
    if (settings.progressEvery > 0 && mergeIndex % settings.progressEvery === 0) settings.progress(mergeIndex);
  }
  return { merges, stoppedBy: 'vocab-size' };
}

/** Rewrites pair `key` as symbol `n` in every word holding it; the changes to the neighbouring pairs' counts. */
function mergeInWords(
  { words, lengths, freq }: Symbols,
  pairs: PairIndex,
  key: number,
  n: number,
  seen: Int32Array,
  mergeIndex: number,
): Map<number, number> {
  const a = Math.floor(key / PAIR_SHIFT);
  const b = key - a * PAIR_SHIFT;
  const delta = new Map<number, number>();
  const bump = (k: number, by: number) => delta.set(k, (delta.get(k) ?? 0) + by);
  for (const w of pairs.where.get(key) ?? []) {
    if (seen[w] === mergeIndex) continue;
    seen[w] = mergeIndex;
    const s = words[w] as Int32Array;
    const len = lengths[w] as number;
    const f = freq[w] as number;
    let j = 0;
    let i = 0;
    while (i < len) {
      if (i + 1 < len && s[i] === a && s[i + 1] === b) {
        if (j > 0) {
          const prev = s[j - 1] as number;
          bump(prev * PAIR_SHIFT + a, -f);
          bump(prev * PAIR_SHIFT + n, f);
          pairs.noteWhere(prev * PAIR_SHIFT + n, w);
        }
        if (i + 2 < len) {
          const next = s[i + 2] as number;
          bump(b * PAIR_SHIFT + next, -f);
          bump(n * PAIR_SHIFT + next, f);
          pairs.noteWhere(n * PAIR_SHIFT + next, w);
        }
        s[j++] = n;
        i += 2;
      } else {
        s[j++] = s[i++] as number;
      }
    }
    lengths[w] = j;
  }
  return delta;
}

/** The merged pair is gone; the others' counts move by their deltas, and a pair that rose goes on the heap again. */
function applyDeltas(pairs: PairIndex, merged: number, delta: Map<number, number>): void {
  pairs.count.delete(merged);
  pairs.where.delete(merged);
  for (const [key, d] of delta) {
    if (key === merged || d === 0) continue;
    const c = (pairs.count.get(key) ?? 0) + d;
    if (c <= 0) {
      pairs.count.delete(key);
      pairs.where.delete(key);
    } else {
      pairs.count.set(key, c);
      if (d > 0) pairs.heap.push(key, c);
    }
  }
}

/** The Hugging Face tokenizer.json object: the learned vocabulary and merges, then the added tokens. */
function tokenizerJson(strings: string[], merges: [string, string][], addedTokens: readonly AddedTokenSpec[]) {
  const vocab: Record<string, number> = {};
  strings.forEach((s, id) => (vocab[s] = id));
  const firstAdded = strings.length;
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: addedTokens.map((t, i) => ({
      id: firstAdded + i,
      content: t.content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: t.special,
    })),
    // No normalizer: NFC (as in Qwen) would change terminal text that is not NFC, and the lab needs exact round trips.
    normalizer: null,
    pre_tokenizer: qwenPreTokenizer(),
    post_processor: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      // "left right" strings: byte-level tokens never hold a space (it is Ġ), and every reader takes this form.
      merges: merges.map(([l, r]) => `${l} ${r}`),
    },
  };
}

/** tokenizer_config.json: eos <|im_end|> and pad <|endoftext|> when they are added tokens, no cleanup. */
function tokenizerConfig(addedTokens: readonly AddedTokenSpec[]): Record<string, unknown> {
  const names = new Set(addedTokens.map((t) => t.content));
  return {
    tokenizer_class: 'PreTrainedTokenizerFast',
    clean_up_tokenization_spaces: false,
    add_bos_token: false,
    add_prefix_space: false,
    bos_token: null,
    unk_token: null,
    eos_token: names.has(CHATML.imEnd) ? CHATML.imEnd : null,
    pad_token: names.has(CHATML.endOfText) ? CHATML.endOfText : null,
    split_special_tokens: false,
  };
}

/** Split text on occurrences of added-token contents, dropping them (longest match first, as Hugging Face does). */
function addedTokenSplitter(contents: string[]): (text: string) => string[] {
  if (contents.length === 0) return (text) => [text];
  const escaped = [...contents]
    .sort((x, y) => y.length - x.length)
    .map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(escaped.join('|'), 'g');
  return (text) => text.split(pattern);
}

/** Max-heap of (pair key, count): higher count first, then the smaller key (left id, then right id). */
class PairHeap {
  private keys: number[] = [];
  private counts: number[] = [];

  push(key: number, count: number): void {
    this.keys.push(key);
    this.counts.push(count);
    let i = this.keys.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): { key: number; count: number } | undefined {
    const n = this.keys.length;
    if (n === 0) return undefined;
    const top = { key: this.keys[0] as number, count: this.counts[0] as number };
    const lastKey = this.keys.pop() as number;
    const lastCount = this.counts.pop() as number;
    if (n > 1) {
      this.keys[0] = lastKey;
      this.counts[0] = lastCount;
      let i = 0;
      const size = n - 1;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < size && this.before(l, best)) best = l;
        if (r < size && this.before(r, best)) best = r;
        if (best === i) break;
        this.swap(i, best);
        i = best;
      }
    }
    return top;
  }

  private before(i: number, j: number): boolean {
    const ci = this.counts[i] as number;
    const cj = this.counts[j] as number;
    return ci !== cj ? ci > cj : (this.keys[i] as number) < (this.keys[j] as number);
  }

  private swap(i: number, j: number): void {
    [this.keys[i], this.keys[j]] = [this.keys[j] as number, this.keys[i] as number];
    [this.counts[i], this.counts[j]] = [this.counts[j] as number, this.counts[i] as number];
  }
}
