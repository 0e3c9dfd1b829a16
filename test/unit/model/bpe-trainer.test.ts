import { describe, expect, test } from 'vitest';
import { BYTE_LEVEL_ORDER, BYTE_TO_CHAR, bytesToByteLevel } from '../../../native/model/tokenizer/bytes';
import { loadTokenizer, splitWords, trainBpe } from '../../../native/model/tokenizer/index';
import { seededRandom } from '../../helpers/corpus';

/**
 * The textbook algorithm: recount every pair of every word at every step. Slow and obviously right; the
 * fast trainer (incremental counts, pair index, lazy heap) must choose the very same merges.
 */
function naiveMerges(docs: string[], vocabSize: number, minFrequency: number): string[] {
  const counts = new Map<string, number>();
  for (const d of docs) for (const w of splitWords(d)) counts.set(w, (counts.get(w) ?? 0) + 1);
  const words = [...counts].map(([w, c]) => ({ syms: [...bytesToByteLevel(new TextEncoder().encode(w))], c }));
  const ids = new Map<string, number>(BYTE_LEVEL_ORDER.map((b, i) => [BYTE_TO_CHAR[b] as string, i]));
  const merges: string[] = [];
  while (ids.size < vocabSize) {
    const pairs = new Map<string, { a: string; b: string; n: number }>();
    for (const { syms, c } of words) {
      for (let i = 0; i + 1 < syms.length; i++) {
        const key = `${syms[i]}\u0000${syms[i + 1]}`;
        const p = pairs.get(key) ?? { a: syms[i]!, b: syms[i + 1]!, n: 0 };
        p.n += c;
        pairs.set(key, p);
      }
    }
    let best: { a: string; b: string; n: number } | null = null;
    for (const p of pairs.values()) {
      if (!best || p.n > best.n) best = p;
      else if (p.n === best.n) {
        const [pa, pb, ba, bb] = [ids.get(p.a)!, ids.get(p.b)!, ids.get(best.a)!, ids.get(best.b)!];
        if (pa < ba || (pa === ba && pb < bb)) best = p;
      }
    }
    if (!best || best.n < minFrequency) break;
    const merged = best.a + best.b;
    if (!ids.has(merged)) ids.set(merged, ids.size);
    merges.push(`${best.a} ${best.b}`);
    for (const w of words) {
      const out: string[] = [];
      for (let i = 0; i < w.syms.length; i++) {
        if (i + 1 < w.syms.length && w.syms[i] === best.a && w.syms[i + 1] === best.b) {
          out.push(merged);
          i++;
        } else out.push(w.syms[i]!);
      }
      w.syms = out;
    }
  }
  return merges;
}

describe('BPE trainer', () => {
  test.each([1, 2, 3, 4, 5])('chooses the same merges as the naive algorithm (random corpus %i)', (seed) => {
    const rand = seededRandom(seed);
    // A small alphabet makes long repeats, overlapping pairs ("aaaa") and count ties common.
    const alphabet = ['a', 'b', 'c', ' ', 'ab', '\n', 'é', 'aa'];
    const docs = Array.from({ length: 30 }, () =>
      Array.from({ length: 40 }, () => alphabet[Math.floor(rand() * alphabet.length)]).join(''),
    );
    const vocabSize = 256 + 60;
    const fast = trainBpe({ corpus: docs, vocabSize: vocabSize + 9, minFrequency: 2 });
    expect(JSON.parse(fast.json).model.merges).toEqual(naiveMerges(docs, vocabSize, 2));
  });

  test('added-token text in the corpus is a boundary and never learned', () => {
    const docs = ['<|im_start|>user\nhi<|im_end|>\n'.repeat(40)];
    const json = JSON.parse(trainBpe({ corpus: docs, vocabSize: 400 }).json);
    const vocab = Object.keys(json.model.vocab);
    expect(vocab.some((t) => t.includes('im_start|>'))).toBe(false);
    expect(vocab).toContain('user');
  });

  test('a learned token is never spelled like an added token (the two ids would compete for one string)', () => {
    // Added-token text is split out of the corpus, so a clash needs an added token written in the byte-level
    // alphabet: "Ġhi" is also what the text " hi" becomes.
    const json = JSON.parse(
      trainBpe({ corpus: [' hi'.repeat(30)], vocabSize: 300, addedTokens: [{ content: 'Ġhi', special: false }] }).json,
    );
    expect(json.model.vocab['hi']).toBeDefined();
    expect(json.model.vocab['Ġhi']).toBeUndefined();
    expect(json.model.merges).not.toContain('Ġ hi');
  });

  test('raw bytes in a corpus are counted as bytes, not as U+FFFD, and never merged', () => {
    const latin1 = Uint8Array.from([
      ...new TextEncoder().encode('caf'),
      0xe9,
      0x20,
      ...new TextEncoder().encode('caf'),
      0xe9,
      0x20,
    ]);
    const trained = trainBpe({ corpus: Array.from({ length: 20 }, () => latin1), vocabSize: 300 });
    const vocab = Object.keys(JSON.parse(trained.json).model.vocab);
    expect(vocab).toContain('caf');
    expect(vocab.some((t) => t.includes('ï¿½'))).toBe(false); // U+FFFD in byte-level form
    const tok = loadTokenizer(trained.json);
    expect(tok.decodeBytes(tok.encodeBytes(latin1))).toEqual(latin1);
  });
});
