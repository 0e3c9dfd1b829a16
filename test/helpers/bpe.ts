/**
 * A tiny byte-level BPE trainer for tests: learns merges from a corpus and writes a Hugging Face
 * `tokenizer.json` (ByteLevel pre-tokenizer and decoder, BPE model, ChatML special tokens) that
 * @huggingface/tokenizers loads like any checkpoint's. Small and slow on purpose; the lab's real trainer
 * lives in native/model/tokenizer.
 */

/** GPT-2's byte-to-unicode table: printable bytes map to themselves, the rest to code points from 256. */
export function bytesToUnicode(): string[] {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const table: string[] = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++) table[b] = String.fromCodePoint(keep.includes(b) ? b : 256 + extra++);
  return table;
}

/** The pre-tokenizer split of GPT-2 (what `ByteLevel` with use_regex applies). */
const SPLIT = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

export interface BpeOptions {
  merges: number;
  specialTokens?: string[];
}

export const CHATML_SPECIALS = ['<|im_start|>', '<|im_end|>', '<|endoftext|>'];

export function trainByteLevelBpe(corpus: string[], options: BpeOptions): object {
  const table = bytesToUnicode();
  const encoder = new TextEncoder();
  const words = new Map<string, number>();
  for (const text of corpus) {
    for (const piece of text.match(SPLIT) ?? []) {
      const mapped = [...encoder.encode(piece)].map((b) => table[b]).join('');
      words.set(mapped, (words.get(mapped) ?? 0) + 1);
    }
  }
  let splits = [...words.entries()].map(([w, n]) => ({ parts: [...w], n }));
  const vocab = new Map<string, number>();
  for (const ch of table) vocab.set(ch, vocab.size);
  const merges: string[] = [];
  for (let m = 0; m < options.merges; m++) {
    const counts = new Map<string, number>();
    for (const { parts, n } of splits) for (let i = 0; i + 1 < parts.length; i++) counts.set(`${parts[i]} ${parts[i + 1]}`, (counts.get(`${parts[i]} ${parts[i + 1]}`) ?? 0) + n);
    let best: string | null = null;
    let bestCount = 1;
    for (const [pair, n] of counts) if (n > bestCount || (n === bestCount && best !== null && pair < best)) [best, bestCount] = [pair, n];
    if (!best) break;
    const [a, b] = best.split(' ') as [string, string];
    merges.push(best);
    vocab.set(a + b, vocab.size);
    splits = splits.map(({ parts, n }) => {
      const out: string[] = [];
      for (let i = 0; i < parts.length; i++) {
        if (parts[i] === a && parts[i + 1] === b) {
          out.push(a + b);
          i++;
        } else out.push(parts[i] as string);
      }
      return { parts: out, n };
    });
  }
  const specials = options.specialTokens ?? CHATML_SPECIALS;
  const added = specials.map((content, i) => ({ id: vocab.size + i, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }));
  for (const a of added) vocab.set(a.content, a.id);
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab: Object.fromEntries(vocab),
      merges,
    },
  };
}
