import { execFileSync } from 'node:child_process';
import { Tokenizer as HfTokenizerImpl } from '@huggingface/tokenizers';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  BYTE_TO_CHAR,
  CHATML,
  TokenizerError,
  bytesToText,
  loadTokenizer,
  loadTokenizerFile,
  segmentDrift,
  splitWords,
  trainBpe,
  writeTokenizerFiles,
  type Tokenizer,
} from '../../../native/model/tokenizer/index';
import { bytesToByteLevel } from '../../../native/model/tokenizer/bytes';
import { seededRandom, terminalCorpus, transcript } from '../../helpers/corpus';
import { findPython, pythonSkipNote, runPythonJson } from '../../helpers/python';
import { optionalSkip } from '../../helpers/skip';
import { makeTempDir } from '../../helpers/tmp';

const corpus = terminalCorpus(200_000, 3);
const VOCAB = 512;
const trained = trainBpe({ corpus, vocabSize: VOCAB });
/** Ids of the added tokens: after the 256 bytes and the learned merges. */
const A = VOCAB - 9;
let tok: Tokenizer;
const dir = makeTempDir('t1lab-tok-');

beforeAll(() => {
  writeTokenizerFiles(dir.path, trained);
  tok = loadTokenizerFile(dir.path);
});
afterAll(() => dir.remove());

/** Random text mixing ASCII, control bytes, escapes, CJK, emoji, combining marks and added tokens. */
function randomText(rand: () => number, maxLen: number): string {
  const pieces = [
    '\n',
    '\r\n',
    '\t',
    ' ',
    '  ',
    '\x1b[0m',
    'é',
    'e\u0301',
    '日本',
    '😀',
    '\u0000',
    '\uFEFF',
    '<|im_end|>',
    '<tool_call>',
    "'s",
    '123',
    'ls -la',
    '\n\n',
  ];
  let s = '';
  const len = Math.floor(rand() * maxLen);
  for (let i = 0; i < len; i++) {
    const r = rand();
    if (r < 0.5) s += String.fromCharCode(0x20 + Math.floor(rand() * 95));
    else if (r < 0.8) s += pieces[Math.floor(rand() * pieces.length)];
    else s += String.fromCodePoint(Math.floor(rand() * 0x2ffff) % 0xd800);
  }
  return s;
}

describe('trained byte-level BPE', () => {
  test('writes a standard tokenizer.json: byte alphabet first, merges, no normalizer, ChatML and tool tags as added tokens', () => {
    const json = JSON.parse(trained.json);
    expect(json.model.type).toBe('BPE');
    expect(json.normalizer).toBeNull();
    expect(json.decoder.type).toBe('ByteLevel');
    expect(json.pre_tokenizer.pretokenizers.map((p: { type: string }) => p.type)).toEqual(['Split', 'ByteLevel']);
    expect(json.model.vocab['!']).toBe(0);
    expect(json.model.vocab['Ġ']).toBe(220);
    expect(Object.keys(json.model.vocab)).toHaveLength(VOCAB - 9);
    expect(json.model.merges.length).toBeGreaterThanOrEqual(VOCAB - 9 - 256);
    for (const m of json.model.merges) expect(m.split(' ')).toHaveLength(2);
    expect(
      json.added_tokens.map((t: { content: string; id: number; special: boolean }) => [t.id, t.content, t.special]),
    ).toEqual([
      [A + 0, '<|endoftext|>', true],
      [A + 1, '<|im_start|>', true],
      [A + 2, '<|im_end|>', true],
      [A + 3, '<tool_call>', false],
      [A + 4, '</tool_call>', false],
      [A + 5, '<tool_response>', false],
      [A + 6, '</tool_response>', false],
      [A + 7, '<think>', false],
      [A + 8, '</think>', false],
    ]);
    for (const t of json.added_tokens) expect(json.model.vocab[t.content]).toBeUndefined();
    expect(trained.stats).toMatchObject({ vocabSize: VOCAB, stoppedBy: 'vocab-size' });
  });

  test('@huggingface/tokenizers loads what it wrote, with the special ids and stop ids', () => {
    expect(tok.vocabSize).toBe(VOCAB);
    expect(tok.byteLevel).toBe(true);
    expect(tok.roundTrip).toBe('exact');
    expect(tok.special).toMatchObject({
      endOfText: A,
      imStart: A + 1,
      imEnd: A + 2,
      toolCallStart: A + 3,
      toolCallEnd: A + 4,
      eos: A + 2,
      pad: A,
    });
    expect(tok.stopTokenIds).toEqual([A + 2, A]);
    expect(tok.isSpecial(A + 2)).toBe(true);
    expect(tok.isSpecial(A + 3)).toBe(false);
    expect(tok.chatTemplate).toBeNull();
  });

  test('learned merges compress the kind of text it was trained on', () => {
    // Ten held-out transcripts, so the figure does not hang on one draw.
    const text = Array.from({ length: 10 }, (_, i) => transcript(seededRandom(99 + i))).join('');
    const ids = tok.encode(text);
    expect(new TextEncoder().encode(text).length / ids.length).toBeGreaterThan(2.5);
    expect(tok.encode(' error')).toHaveLength(1);
    expect(tok.encode('<|im_start|>assistant\n')).toEqual([A + 1, ...tok.encode('assistant\n')]);
  });

  test('the trainer splits words exactly as the library pre-tokenizes (Qwen pattern, Oniguruma vs JS)', () => {
    const impl = new HfTokenizerImpl(JSON.parse(trained.json), {});
    const rand = seededRandom(11);
    const samples = [
      "it's DON'T we'll I'M they'Re",
      'a  b   c\t\td\r\n\r\n\n e',
      '数字 123456 ñandú Ωmega ÉCOLE',
      '});\n\n  }\n',
      ...Array.from({ length: 200 }, () => randomText(rand, 60).replace(/<\|im_end\|>|<tool_call>/g, '')),
    ];
    for (const s of samples) {
      const lib = impl.pre_tokenizer!(s) as string[];
      expect(lib).toEqual(splitWords(s).map((w) => bytesToByteLevel(new TextEncoder().encode(w))));
    }
  });

  test('the same corpus gives the same file', () => {
    expect(trainBpe({ corpus, vocabSize: VOCAB }).json).toBe(trained.json);
  });

  test('minFrequency stops merging before the vocabulary is full', () => {
    const small = trainBpe({ corpus: ['abab abab xyz'], vocabSize: 400, minFrequency: 2 });
    expect(small.stats.stoppedBy).toBe('min-frequency');
    expect(small.stats.vocabSize).toBeLessThan(400);
    expect(() => trainBpe({ corpus: ['x'], vocabSize: 100 })).toThrow(/at least 256 bytes \+ 9 added tokens/);
  });
});

describe('round trips', () => {
  test('decode(encode(s)) === s for random strings, added tokens included', () => {
    const rand = seededRandom(5);
    for (let i = 0; i < 400; i++) {
      const s = randomText(rand, 80);
      const ids = tok.encode(s);
      expect(tok.decode(ids)).toBe(s);
      expect(tok.decode(tok.encode(s, { parseSpecialTokens: false }))).toBe(s);
    }
  });

  test('decodeBytes(encodeBytes(b)) equals b for random bytes, and decode gives the escaped text', () => {
    const rand = seededRandom(6);
    for (let i = 0; i < 400; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(rand() * 64) }, () =>
        rand() < 0.5 ? 0x20 + Math.floor(rand() * 95) : Math.floor(rand() * 256),
      );
      const ids = tok.encodeBytes(bytes);
      expect(tok.decodeBytes(ids)).toEqual(bytes);
      expect(tok.decode(ids)).toBe(bytesToText(bytes));
    }
  });

  test('invalid UTF-8 from a real program keeps every byte: each becomes its byte token', () => {
    // printf emits Latin-1 "café" (E9 is not UTF-8 on its own) and a Euro sign cut after two of its three bytes.
    const out = execFileSync('printf', ['caf\\351 ok\\n\\342\\202']);
    expect([...out]).toEqual([0x63, 0x61, 0x66, 0xe9, 0x20, 0x6f, 0x6b, 0x0a, 0xe2, 0x82]);
    const ids = tok.encodeBytes(out);
    expect(ids.slice(-2)).toEqual([tok.tokenToId(BYTE_TO_CHAR[0xe2]!), tok.tokenToId(BYTE_TO_CHAR[0x82]!)]);
    expect(ids).toContain(tok.tokenToId(BYTE_TO_CHAR[0xe9]!));
    expect(Buffer.from(tok.decodeBytes(ids)).equals(out)).toBe(true);
    expect(tok.decode(ids)).toBe('caf\uDCE9 ok\n\uDCE2\uDC82');
    expect(tok.decode(ids)).not.toContain('\uFFFD');
    // The pieces decode token by token to the same bytes (for a UI that shows each token).
    expect(Buffer.concat(ids.map((id) => tok.tokenBytes(id))).equals(out)).toBe(true);
  });

  test('strings that hold no bytes and no text are refused with a clear error, not replaced', () => {
    expect(() => tok.encode('ok \uD800')).toThrow(TokenizerError);
    expect(() => tok.encode('ok \uD800')).toThrow(/lone high surrogate U\+D800 at index 3/);
    expect(() => tok.encode('\uDCC3\uDCA9')).toThrow(/not a canonical byte escape/);
    expect(() => tok.decode([5, VOCAB])).toThrow(/token id 512 at position 1 is not in the vocabulary/);
    expect(() => tok.decode([-1])).toThrow(TokenizerError);
    expect(tok.decode([])).toBe('');
  });
});

describe('special tokens', () => {
  test('added tokens written as text are parsed by default and kept as characters with parseSpecialTokens: false', () => {
    expect(tok.encode('a<|im_end|>b')).toContain(tok.special.imEnd);
    const raw = tok.encode('a<|im_end|>b', { parseSpecialTokens: false });
    expect(raw).not.toContain(tok.special.imEnd);
    expect(tok.decode(raw)).toBe('a<|im_end|>b');
  });

  test('skipSpecialTokens drops ChatML tokens and keeps the tool-call tags (they are not special)', () => {
    const ids = tok.encode('<|im_start|>assistant\n<tool_call>\n{}\n</tool_call><|im_end|>');
    expect(tok.decode(ids, { skipSpecialTokens: true })).toBe('assistant\n<tool_call>\n{}\n</tool_call>');
  });

  test('addSpecialTokens applies the post-processor of the file (here a template that appends <|endoftext|>)', () => {
    const json = JSON.parse(trained.json);
    json.post_processor = {
      type: 'TemplateProcessing',
      single: [{ Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: CHATML.endOfText, type_id: 0 } }],
      pair: [],
      special_tokens: { [CHATML.endOfText]: { id: CHATML.endOfText, ids: [A], tokens: [CHATML.endOfText] } },
    };
    const t = loadTokenizer(JSON.stringify(json));
    expect(t.encode('hi', { addSpecialTokens: true })).toEqual([...t.encode('hi'), A]);
    expect(t.encode('hi')).toEqual(tok.encode('hi'));
  });
});

describe('drift (TITO)', () => {
  test('a merge across a segment boundary: "ok\\n" then "\\n" encodes differently apart and joined', () => {
    // Qwen's pattern keeps "\n\n" in one pre-token, and this corpus teaches the merge "\n" + "\n".
    const t = loadTokenizer(trainBpe({ corpus: ['ok\n\nok\n\n'.repeat(50)], vocabSize: 280 }).json);
    const nl = t.tokenToId('Ċ')!;
    const nlnl = t.tokenToId('ĊĊ')!;
    expect(nlnl).toBeDefined();
    const drift = segmentDrift(t, ['<|im_start|>assistant\nok\n', '\n<|im_end|>']);
    expect(drift.firstDifference).not.toBeNull();
    expect(drift.separate.slice(drift.segmentStarts[1]! - 1, drift.segmentStarts[1]! + 1)).toEqual([nl, nl]);
    expect(drift.joint).toContain(nlnl);
    expect(t.decode(drift.separate)).toBe(t.decode(drift.joint));
    // Added tokens are hard boundaries: the "\n" after <|im_end|> never drifts.
    expect(segmentDrift(t, ['ok<|im_end|>', '\n<|im_start|>user\n']).firstDifference).toBeNull();
  });
});

describe('other tokenizer.json files', () => {
  /** A tiny BERT-style WordPiece tokenizer: not byte-level. */
  const wordPiece = JSON.stringify({
    version: '1.0',
    added_tokens: [{ id: 0, content: '[UNK]', special: true }],
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'Whitespace' },
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: false },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: { '[UNK]': 0, hello: 1, world: 2, '##s': 3 },
    },
  });

  test('a WordPiece tokenizer loads, is marked lossy, and refuses raw bytes instead of losing them', () => {
    const t = loadTokenizer(wordPiece, { source: 'bert/tokenizer.json' });
    expect(t.byteLevel).toBe(false);
    expect(t.roundTrip).toBe('lossy');
    expect(t.encode('Hello worlds zzz')).toEqual([1, 2, 3, 0]);
    expect(t.decode([1, 2, 3])).toBe('hello worlds');
    expect(() => t.encodeBytes(Uint8Array.from([0x68, 0xff]))).toThrow(
      /bert\/tokenizer.json is not a byte-level BPE tokenizer/,
    );
    expect(() => t.decodeBytes([1])).toThrow(/not a byte-level/);
  });

  test('broken files fail with the file and field named', () => {
    expect(() => loadTokenizer('{', { source: 'x/tokenizer.json' })).toThrow(/x\/tokenizer.json: not valid JSON/);
    expect(() => loadTokenizer('{"added_tokens": []}', { source: 'x/tokenizer.json' })).toThrow(
      /x\/tokenizer.json: model: /,
    );
    expect(() =>
      loadTokenizer('{"model": {"type": "BPE", "vocab": {}}, "added_tokens": [{"id": -1, "content": "a"}]}'),
    ).toThrow(/added_tokens.0.id/);
    expect(() => loadTokenizerFile(`${dir.path}/missing`)).toThrow(/missing\/tokenizer.json: no such file/);
  });

  const qwen = process.env.T1LAB_HF_TOKENIZER;
  test('a real Hugging Face tokenizer (T1LAB_HF_TOKENIZER, e.g. Qwen3) loads with its ChatML ids', (ctx) => {
    ctx.skip(
      !qwen,
      optionalSkip('T1LAB_HF_TOKENIZER is not set (a downloaded Hugging Face tokenizer.json, e.g. Qwen3)'),
    );
    const t = loadTokenizerFile(qwen!);
    expect(t.byteLevel).toBe(true);
    expect(t.special.imStart).toBeDefined();
    expect(t.stopTokenIds).toContain(t.special.imEnd);
    const rand = seededRandom(8);
    for (let i = 0; i < 200; i++) {
      const s = randomText(rand, 80);
      expect(t.decode(t.encode(s))).toBe(t.roundTrip === 'exact' ? s : s.normalize('NFC'));
    }
  });
});

const python = findPython(['tokenizers']);
test('Rust tokenizers (Python) loads the trained file and encodes and decodes exactly as we do', (ctx) => {
  ctx.skip(!python, pythonSkipNote(['tokenizers']));
  const rand = seededRandom(9);
  const texts = [transcript(rand), ...Array.from({ length: 100 }, () => randomText(rand, 60))];
  const script = `
import json, sys
from tokenizers import Tokenizer
data = json.load(sys.stdin)
t = Tokenizer.from_file(data["file"])
out = []
for s in data["texts"]:
    ids = t.encode(s, add_special_tokens=False).ids
    out.append({"ids": ids, "text": t.decode(ids, skip_special_tokens=False)})
print(json.dumps(out))`;
  const result = runPythonJson(python!, script, { file: `${dir.path}/tokenizer.json`, texts }) as {
    ids: number[];
    text: string;
  }[];
  texts.forEach((s, i) => {
    expect(result[i]!.ids).toEqual(tok.encode(s));
    expect(result[i]!.text).toBe(s);
  });
});
