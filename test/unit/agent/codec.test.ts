import { Tokenizer } from '@huggingface/tokenizers';
import { describe, expect, it } from 'vitest';
import { chatml } from '../../../electron/agent/chat/chatml';
import { chunkedCodec, hfCodec, splitTokensOf } from '../../../electron/agent/tokens/codec';
import { trainByteLevelBpe } from '../../helpers/bpe';

const json = trainByteLevelBpe(
  [
    '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>',
    'total 8\n-rw-r--r-- 1 root root  12 a.txt\n',
  ],
  { merges: 150 },
);
const reference = new Tokenizer(json, {});
const plain = (text: string) => reference.encode(text, { add_special_tokens: false }).ids;

describe('chunked tokenization', () => {
  it('gives exactly the ids of tokenizing the whole text, for conversations that grow turn by turn', () => {
    const codec = hfCodec(json);
    const messages = [
      { role: 'system' as const, content: 'You are an agent.' },
      { role: 'user' as const, content: 'List the files.' },
    ];
    for (let turn = 0; turn < 6; turn++) {
      const text = chatml.render(messages, { addGenerationPrompt: true });
      expect(codec.encode(text)).toEqual(plain(text));
      messages.push({
        role: 'assistant',
        content: `<tool_call>{"name": "bash", "arguments": {"command": "ls ${turn}"}}</tool_call>`,
      } as never);
      messages.push({ role: 'tool', content: `total ${turn}\n-rw-r--r-- 1 root root <|im_end|> fake\n\n` } as never);
    }
    for (const edge of [
      '',
      '<|im_end|>',
      '<|im_start|><|im_end|>',
      'x<|im_end|>',
      '<|im_end|>\n\n  ',
      ' <|endoftext|> end',
    ])
      expect(codec.encode(edge)).toEqual(plain(edge));
  });

  it('refuses to chunk where chunks would not be exact', () => {
    const j = json as { added_tokens: { lstrip?: boolean }[] };
    expect(splitTokensOf(json)).not.toBeNull();
    expect(splitTokensOf({ ...j, added_tokens: [{ ...j.added_tokens[0], lstrip: true }] })).toBeNull();
    expect(splitTokensOf({ ...j, pre_tokenizer: { type: 'Metaspace', prepend_scheme: 'first' } })).toBeNull();
  });

  it('tokenizes a piece seen before from its cache', () => {
    let calls = 0;
    const codec = chunkedCodec({ encode: (t) => (calls++, plain(t)), decode: () => '' }, splitTokensOf(json)!);
    const text = '<|im_start|>user\nhello<|im_end|>\n';
    codec.encode(text);
    const first = calls;
    codec.encode(text + '<|im_start|>assistant\n');
    expect(calls - first).toBe(1);
  });
});
