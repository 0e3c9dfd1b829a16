// Copy drills as SFT samples in the harness's exact layout: the compact system prompt of a real SFT sample (the
// nano budget's), the drill's instruction, its tool calls (trained) and outputs (not trained).
// usage: npx tsx docs/examples/copy-drills/drill-samples.ts TOKENIZER.json SFT-SAMPLES.jsonl OUT.jsonl [COUNT]
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { loadTokenizerFile } from '../../../native/model/tokenizer/hf-tokenizer';
import { createFamilyRng } from '../../../tasks/families/rng';
import { drillOf } from '../../../electron/lab/training/corpus/copy-drills';
import { createHermesProtocol } from '../../../electron/agent/protocol/hermes';

const [tokPath, sampleFile, out, countArg] = process.argv.slice(2);
const tok = loadTokenizerFile(tokPath!);
const sha = createHash('sha256').update(readFileSync(tokPath!)).digest('hex');
const first = JSON.parse(readFileSync(sampleFile!, 'utf8').split('\n')[0]!);
if (first.tokenizer !== sha) throw new Error('tokenizer mismatch');
const promptText = tok.decode(first.ids.slice(0, first.segments[0].length));
const system = promptText.slice(0, promptText.indexOf('<|im_start|>user\n'));
const protocol = createHermesProtocol();
const lines: string[] = [];
for (let d = 0; d < Number(countArg ?? 800); d++) {
  const r = createFamilyRng((31 * 1_000_003 + d) >>> 0);
  const drill = drillOf(r);
  const pieces: [string, 'prompt' | 'sampled' | 'template' | 'observation'][] = [[`${system}<|im_start|>user\n${drill.instruction.replace(/\n*$/, '\n')}<|im_end|>\n<|im_start|>assistant\n`, 'prompt']];
  for (const [i, step] of drill.steps.entries()) {
    pieces.push([`${protocol.writeAction({ tool: 'bash', command: step.command }, `call_${i}`).text}<|im_end|>`, 'sampled']);
    pieces.push(['\n<|im_start|>user\n<tool_response>\n', 'template']);
    pieces.push([`${step.output ? `${step.output}\n` : ''}[exit code 0 · 0.01 s]`, 'observation']);
    pieces.push(['\n</tool_response><|im_end|>\n<|im_start|>assistant\n', 'template']);
  }
  pieces.push([`${protocol.writeAction({ tool: 'submit' }, 'call_submit').text}<|im_end|>`, 'sampled']);
  const ids: number[] = [], mask: (0 | 1)[] = [], segments: { kind: string; start: number; length: number }[] = [];
  for (const [text, kind] of pieces) {
    const e = tok.encode(text);
    segments.push({ kind, start: ids.length, length: e.length });
    for (const id of e) { ids.push(id); mask.push(kind === 'sampled' ? 1 : 0); }
  }
  lines.push(JSON.stringify({ schema: 't1lab.sft-sample/1', id: `drill-${d}@0#0`, task: `drill-${d}`, source: 'copy-drill', tokenizer: sha, ids, mask, segments, protocol: first.protocol, reward: null, resolved: true, turns: drill.steps.length + 1, ledger: { clean: 1, repair: 0, fork: 0, lossDrift: 0 } }));
}
writeFileSync(out!, lines.join('\n') + '\n');
console.log(lines.length, 'samples; first:', tok.decode(JSON.parse(lines[0]!).ids).slice(promptText.indexOf('<|im_start|>user') , promptText.indexOf('<|im_start|>user') + 600));
