import { describe, expect, it } from 'vitest';
import { chatml } from '../../../electron/agent/chat/chatml';
import { jinjaTemplate } from '../../../electron/agent/chat/jinja';
import type { ChatTemplate } from '../../../electron/agent/chat/template';
import { hfCodec, type TokenCodec } from '../../../electron/agent/tokens/codec';
import { checkLossDrift } from '../../../electron/agent/tokens/drift';
import { TokenLedger, type TitoMode } from '../../../electron/agent/tokens/ledger';
import type { ChatMessage, LedgerSample } from '../../../electron/domain/trajectory';
import { trainByteLevelBpe } from '../../helpers/bpe';

const CORPUS = [
  '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>',
  '{"name": "bash", "arguments": {"command": "cat notes.txt"}}</tool_call>',
  '}</tool_call>}</tool_call>}</tool_call>',
  'total 8\ndrwxr-xr-x 2 root root 4096 notes.txt\nhello world\n\n',
  'You are an AI agent solving a task in a Linux terminal.',
];
const codec: TokenCodec = hfCodec(trainByteLevelBpe(CORPUS, { merges: 120 }));
const IM_END = codec.encode('<|im_end|>');

/** A token-level conversation: the harness's side of the loop, with the ledger in it. */
function conversation(template: ChatTemplate = chatml, mode: TitoMode = 'retokenize') {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are an AI agent solving a task in a Linux terminal.' },
    { role: 'user', content: 'List the files.' },
  ];
  const ledger = new TokenLedger(codec, { repairWindow: 8, mode });
  const sampled: number[][] = [];
  const checks: ReturnType<TokenLedger['sync']>[] = [];
  const render = (addGenerationPrompt = true) => template.render(messages, { addGenerationPrompt });
  checks.push(ledger.sync(render()));
  return {
    messages,
    ledger,
    sampled,
    checks,
    /** The policy samples `ids`; the harness records the assistant message as `content`, then the observation. */
    turn(ids: number[], content: string, observation: string) {
      if (mode === 'retokenize') expect(ledger.ids()).toEqual(codec.encode(render())); // the policy continues from the fresh rendering
      sampled.push(ids);
      ledger.appendSampled({ ids, logprobs: ids.map(() => -0.5) }, { ids: ledger.ids(), routing: null });
      messages.push({ role: 'assistant', content }, { role: 'tool', content: observation });
      const check = ledger.sync(render(), [observation]);
      checks.push(check);
      return check;
    },
    finish() {
      return ledger.finish(render(false));
    },
  };
}

/** Every loss-masked-in id of the samples, in order. */
function trained(samples: LedgerSample[]): number[] {
  return samples.flatMap((s) => s.ids.filter((_, i) => s.mask[i] === 1));
}

describe('TokenLedger', () => {
  it('stays CLEAN when sampled ids end with the stop token and segments are tokenized alone', () => {
    const c = conversation();
    const call = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>';
    const ids = [...codec.encode(call), ...IM_END];
    expect(c.turn(ids, call, 'notes.txt\n[exit code 0 · 0.01 s]')?.verdict).toBe('CLEAN');
    expect(c.turn(ids, call, 'notes.txt')?.verdict).toBe('CLEAN');
    const samples = c.finish();
    expect(samples).toHaveLength(1);
    expect(c.ledger.counters).toMatchObject({ clean: 3, repair: 0, fork: 0, lossDrift: 0 });
    expect(trained(samples)).toEqual(c.sampled.flat());
    const sample = samples[0]!;
    expect(sample.ids).toEqual(codec.encode(chatml.render(c.messages, { addGenerationPrompt: false })));
    expect(sample.segments.map((s) => s.kind)).toEqual([
      'prompt',
      'sampled',
      'template',
      'observation',
      'template',
      'sampled',
      'template',
      'observation',
      'template',
    ]);
    expect(sample.logprobs.filter((l) => l !== null)).toHaveLength(c.sampled.flat().length);
  });

  it('catches a BPE merge across the turn boundary ("}" + "</tool_call>") and repairs it, masked', () => {
    // A server that stops on "</tool_call>" returns the text without it; the harness puts it back.
    const c = conversation();
    const body = '<tool_call>\n{"name": "bash", "arguments": {"command": "cat notes.txt"}}';
    const ids = codec.encode(body);
    const content = `${body}</tool_call>`;
    // The drift is real: tokenizing the pieces alone differs from tokenizing them together.
    expect([...codec.encode(body), ...codec.encode('</tool_call>')]).not.toEqual(codec.encode(content));
    const check = c.turn(ids, content, 'hello world');
    expect(check?.verdict).toBe('REPAIR');
    expect(check?.maskedSampled).toBeGreaterThan(0);
    expect(check?.divergenceAt).toBeGreaterThanOrEqual(
      codec.encode(chatml.render(c.messages.slice(0, 2), { addGenerationPrompt: true })).length,
    );
    const samples = c.finish();
    expect(c.ledger.counters.repair).toBe(1);
    expect(c.ledger.counters.lossDrift).toBe(0);
    // Zero drift where the loss is: every trained id was sampled, in order, and sits where the fresh tokenization has it.
    const sample = samples[0]!;
    const fresh = codec.encode(chatml.render(c.messages, { addGenerationPrompt: false }));
    expect(sample.ids).toEqual(fresh);
    const trainedIds = trained(samples);
    expect(trainedIds).toEqual(ids.slice(0, trainedIds.length));
    expect(trainedIds.length).toBe(ids.length - (check?.maskedSampled ?? 0));
  });

  it('repairs the "\\n" after <|im_end|> that a template renders differently from what was sampled', () => {
    // Qwen-style templates strip the assistant content: a sampled trailing newline before <|im_end|> disappears.
    const stripping = jinjaTemplate(
      "{%- for m in messages %}{{- '<|im_start|>' + m.role + '\\n' + (m.content | trim) + '<|im_end|>\\n' }}{%- endfor %}" +
        "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}",
    );
    const c = conversation(stripping);
    const text = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>\n';
    const ids = [...codec.encode(text), ...IM_END];
    const check = c.turn(ids, text, 'notes.txt');
    expect(check?.verdict).toBe('REPAIR');
    expect(c.ledger.ids()).toEqual(codec.encode(stripping.render(c.messages, { addGenerationPrompt: true })));
    const samples = c.finish();
    expect(c.ledger.counters.lossDrift).toBe(0);
    const trainedIds = trained(samples);
    expect(trainedIds).toEqual(ids.slice(0, trainedIds.length));
  });

  it('repairs a non-canonical split the sampler produced inside the last response', () => {
    const c = conversation();
    const call = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>';
    const canonical = codec.encode(call);
    // The sampler spelled "bash" letter by letter: same text, other ids.
    const bash = codec.encode('bash');
    expect(bash.length).toBe(1);
    const at = canonical.indexOf(bash[0]!);
    const spelled = [
      ...canonical.slice(0, at),
      ...codec.encode('b'),
      ...codec.encode('a'),
      ...codec.encode('s'),
      ...codec.encode('h'),
      ...canonical.slice(at + 1),
      ...IM_END,
    ];
    expect(codec.decode(spelled)).toBe(`${call}<|im_end|>`);
    const check = c.turn(spelled, call, 'notes.txt');
    expect(check?.verdict).toBe('REPAIR');
    // The 4 spelled ids and every sampled id after them: their prefix is no longer what the sampler saw.
    expect(check?.maskedSampled).toBe(spelled.length - at);
    c.finish();
    expect(c.ledger.counters.lossDrift).toBe(0);
  });

  it('forks a new sample when the context is cut, keeping the first sample as it was sampled', () => {
    const c = conversation();
    const call = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>';
    const ids = [...codec.encode(call), ...IM_END];
    c.turn(ids, call, 'notes.txt');
    c.turn(ids, call, 'hello world');
    // The context strategy drops the oldest turn: history changes far before the last response.
    c.messages.splice(2, 2);
    const check = c.ledger.sync(chatml.render(c.messages, { addGenerationPrompt: true }), []);
    expect(check?.verdict).toBe('FORK');
    expect(c.ledger.ids()).toEqual(codec.encode(chatml.render(c.messages, { addGenerationPrompt: true })));
    c.turn(ids, call, 'done');
    const samples = c.finish();
    expect(samples).toHaveLength(2);
    expect(c.ledger.counters).toMatchObject({ fork: 1, lossDrift: 0 });
    expect(trained(samples.slice(0, 1))).toEqual([...ids, ...ids]);
    expect(trained(samples.slice(1))).toEqual(ids);
    expect(samples[1]!.segments[0]!.kind).toBe('prompt');
  });
});

describe('TokenLedger, exact TITO', () => {
  const call = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>';

  it('continues from its own ids: a template that trims the reply is a diagnostic REPAIR, nothing leaves the loss', () => {
    const stripping = jinjaTemplate(
      "{%- for m in messages %}{{- '<|im_start|>' + m.role + '\\n' + (m.content | trim) + '<|im_end|>\\n' }}{%- endfor %}" +
        "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}",
    );
    const c = conversation(stripping, 'exact');
    const text = `${call}\n`;
    const ids = [...codec.encode(text), ...IM_END];
    const prompt = c.ledger.ids();
    const check = c.turn(ids, text, 'notes.txt');
    expect(check).toMatchObject({ verdict: 'REPAIR', applied: false });
    // Token in: the prompt, the sampled ids verbatim, then only the new text tokenized once.
    const next = c.ledger.ids();
    expect(next.slice(0, prompt.length + ids.length)).toEqual([...prompt, ...ids]);
    expect(next).not.toEqual(codec.encode(stripping.render(c.messages, { addGenerationPrompt: true })));
    expect(codec.decode(next.slice(prompt.length + ids.length))).toBe(
      '\n<|im_start|>tool\nnotes.txt<|im_end|>\n<|im_start|>assistant\n',
    );
    c.turn(ids, text, 'again');
    const third = c.ledger.ids();
    expect(third.slice(0, next.length + ids.length)).toEqual([...next, ...ids]);
    expect(codec.decode(third.slice(next.length + ids.length))).toBe(
      '\n<|im_start|>tool\nagain<|im_end|>\n<|im_start|>assistant\n',
    );
    const samples = c.finish();
    expect(samples).toHaveLength(1);
    expect(c.ledger.counters).toMatchObject({ exact: 2, retokenized: 0, maskedSampled: 0, lossDrift: 0 });
    expect(trained(samples)).toEqual(c.sampled.flat());
  });

  it('keeps a non-canonical split the sampler produced, and trains on all of it', () => {
    const c = conversation(chatml, 'exact');
    const canonical = codec.encode(call);
    const at = canonical.indexOf(codec.encode('bash')[0]!);
    const spelled = [
      ...canonical.slice(0, at),
      ...codec.encode('b'),
      ...codec.encode('a'),
      ...codec.encode('s'),
      ...codec.encode('h'),
      ...canonical.slice(at + 1),
      ...IM_END,
    ];
    expect(c.turn(spelled, call, 'notes.txt')).toMatchObject({ verdict: 'REPAIR', applied: false, maskedSampled: 0 });
    const samples = c.finish();
    expect(trained(samples)).toEqual(spelled);
    expect(c.ledger.counters).toMatchObject({ repair: 1, retokenized: 0, lossDrift: 0 });
  });

  it('forks (applied) when history is rewritten', () => {
    const c = conversation(chatml, 'exact');
    const ids = [...codec.encode(call), ...IM_END];
    c.turn(ids, call, 'notes.txt');
    c.turn(ids, call, 'hello world');
    c.messages.splice(2, 2);
    expect(c.ledger.sync(chatml.render(c.messages, { addGenerationPrompt: true }), [])).toMatchObject({
      verdict: 'FORK',
      applied: true,
    });
    c.turn(ids, call, 'done');
    const samples = c.finish();
    expect(samples).toHaveLength(2);
    expect(c.ledger.counters).toMatchObject({ fork: 1, retokenized: 1, lossDrift: 0 });
  });

  it('records the routing of every token the sampler processed (prompt too), first as processed', () => {
    const c = conversation(chatml, 'exact');
    const ids = [...codec.encode(call), ...IM_END];
    const route = (n: number, e: number) =>
      Array.from({ length: n }, () => [
        [e, e + 1],
        [e + 2, e + 3],
      ]);
    const prompt = c.ledger.ids();
    c.ledger.appendSampled(
      { ids, logprobs: ids.map(() => -1), routing: route(ids.length, 10) },
      { ids: prompt, routing: route(prompt.length, 0) },
    );
    c.messages.push({ role: 'assistant', content: call }, { role: 'tool', content: 'x' });
    c.ledger.sync(chatml.render(c.messages, { addGenerationPrompt: true }), ['x']);
    const second = c.ledger.ids();
    // The next prefill re-reports every token; the first record of a token is kept.
    c.ledger.appendSampled(
      { ids, logprobs: ids.map(() => -1), routing: route(ids.length, 20) },
      { ids: second, routing: route(second.length, 30) },
    );
    const [sample] = c.ledger.finish(chatml.render(c.messages, { addGenerationPrompt: false }));
    const routing = sample!.routing!;
    expect(routing).toHaveLength(sample!.ids.length);
    expect(routing.every((r) => r !== null)).toBe(true);
    expect(routing[0]![0]).toEqual([0, 1]);
    expect(routing[prompt.length]![0]).toEqual([10, 11]);
    expect(routing[prompt.length + ids.length]![0]).toEqual([30, 31]); // the observation, first seen in turn 2's prefill
    expect(routing[second.length]![0]).toEqual([20, 21]);
  });

  it('counts drift when the sampler was fed other ids than the sample trains on', () => {
    const c = conversation(chatml, 'exact');
    const ids = [...codec.encode(call), ...IM_END];
    const prompt = c.ledger.ids();
    // A policy that re-tokenized its prompt differently from the ledger (one id changed).
    const fed = [...prompt];
    fed[3] = (fed[3]! + 1) % 50;
    c.ledger.appendSampled({ ids, logprobs: ids.map(() => -1) }, { ids: fed, routing: null });
    c.finish();
    expect(c.ledger.counters.lossDrift).toBe(ids.length);
  });

  it('checkLossDrift catches a tampered sample, a shifted token and an unrecorded loss position', () => {
    const c = conversation(chatml, 'exact');
    const ids = [...codec.encode(call), ...IM_END];
    c.turn(ids, call, 'notes.txt');
    c.turn(ids, call, 'again');
    const [sample] = c.finish();
    expect(checkLossDrift(sample!)).toMatchObject({ drift: 0, unrecorded: 0, lossPositions: 2 * ids.length });
    const promptTampered = { ...sample!, ids: sample!.ids.map((id, i) => (i === 1 ? id + 1 : id)) };
    expect(checkLossDrift(promptTampered).drift).toBe(2 * ids.length);
    const second = sample!.fed![1]!.promptLength;
    const tokenTampered = { ...sample!, ids: sample!.ids.map((id, i) => (i === second + 2 ? id + 1 : id)) };
    expect(checkLossDrift(tokenTampered).drift).toBe(1);
    const noRecord = { ...sample!, fed: sample!.fed!.slice(0, 1) };
    expect(checkLossDrift(noRecord)).toMatchObject({ drift: ids.length, unrecorded: ids.length });
  });
});
