/**
 * Copy drills as SFT samples (`t1lab tasks sft-drills`): transcripts whose instruction names random paths,
 * file names, key=value lines, patterns and modes that the tool calls repeat (corpus/copy-drills.ts), laid
 * out exactly as the harness lays out a real SFT sample of the same file (`--like`): its system prompt, the
 * drill's instruction as the user turn, every tool call trained, every tool output not. Beside the oracle
 * episodes they taught the nano warm start to tell families apart (docs/examples/copy-drills).
 */
import { join, resolve } from 'node:path';
import { hashFile } from '../../../native/model/checkpoint';
import { loadTokenizerFile } from '../../../native/model/tokenizer';
import { createFamilyRng } from '../../../tasks/families/rng';
import { createHermesProtocol } from '../../agent/protocol/hermes';
import { SFT_SAMPLE_SCHEMA, type SftSample } from '../../domain/sft';
import type { SegmentKind } from '../../domain/trajectory';
import { LabError } from '../../ipc/common/errors';
import { drillOf } from './corpus/copy-drills';
import { readSftSamples, SftSampleWriter } from './sft-samples';

export interface DrillSftOptions {
  /** An SFT samples file made for `checkpoint` (`tasks sft-data`): the drills copy its first sample's system prompt. */
  like: string;
  /** The checkpoint whose tokenizer the samples are for. */
  checkpoint: string;
  out: string;
  count: number;
  /** Drill d is drawn from the stream seeded (seed * 1,000,003 + d). */
  seed?: number;
}

export interface DrillSftResult {
  samples: number;
  tokens: number;
  lossTokens: number;
  out: string;
}

/** The seed the measured drill samples were drawn with (docs/examples/copy-drills). */
export const DRILL_SFT_SEED = 31;

const USER_TURN = '<|im_start|>user\n';

/** The text before the first user turn of a sample: the system prompt the harness wrote for this budget. */
function systemPromptOf(like: SftSample, decode: (ids: number[]) => string, path: string): string {
  const prompt = like.segments[0];
  if (!prompt || prompt.kind !== 'prompt')
    throw new LabError(
      'INVALID_PARAMS',
      `${path}:1: the first segment is '${prompt?.kind ?? 'missing'}', not the prompt`,
    );
  const text = decode(like.ids.slice(prompt.start, prompt.start + prompt.length));
  const at = text.indexOf(USER_TURN);
  if (at < 0)
    throw new LabError(
      'INVALID_PARAMS',
      `${path}:1: the prompt has no '<|im_start|>user' turn (a chat-template layout the drills do not know)`,
    );
  return text.slice(0, at);
}

interface DrillLayout {
  system: string;
  protocol: ReturnType<typeof createHermesProtocol>;
  encode(text: string): number[];
  sha: string;
}

/** Drill `d` as one SFT sample: the user turn states it, every tool call is trained, every output is not. */
function drillSample(d: number, seed: number, l: DrillLayout): SftSample {
  const drill = drillOf(createFamilyRng((seed * 1_000_003 + d) >>> 0));
  const pieces: [string, SegmentKind][] = [
    [`${l.system}${USER_TURN}${drill.instruction.replace(/\n*$/, '\n')}<|im_end|>\n<|im_start|>assistant\n`, 'prompt'],
  ];
  for (const [i, step] of drill.steps.entries()) {
    pieces.push([
      `${l.protocol.writeAction({ tool: 'bash', command: step.command }, `call_${i}`).text}<|im_end|>`,
      'sampled',
    ]);
    pieces.push(['\n<|im_start|>user\n<tool_response>\n', 'template']);
    pieces.push([`${step.output ? `${step.output}\n` : ''}[exit code 0 · 0.01 s]`, 'observation']);
    pieces.push(['\n</tool_response><|im_end|>\n<|im_start|>assistant\n', 'template']);
  }
  pieces.push([`${l.protocol.writeAction({ tool: 'submit' }, 'call_submit').text}<|im_end|>`, 'sampled']);
  const ids: number[] = [];
  const mask: (0 | 1)[] = [];
  const segments: SftSample['segments'] = [];
  for (const [text, kind] of pieces) {
    const encoded = l.encode(text);
    segments.push({ kind, start: ids.length, length: encoded.length });
    for (const id of encoded) {
      ids.push(id);
      mask.push(kind === 'sampled' ? 1 : 0);
    }
  }
  const ledger = { clean: 1, repair: 0, fork: 0, lossDrift: 0 };
  return {
    schema: SFT_SAMPLE_SCHEMA,
    id: `drill-${d}@0#0`,
    task: `drill-${d}`,
    source: 'copy-drill',
    tokenizer: l.sha,
    ids,
    mask,
    segments,
    protocol: 'hermes',
    reward: null,
    resolved: true,
    turns: drill.steps.length + 1,
    ledger,
  };
}

export function makeDrillSftSamples(o: DrillSftOptions): DrillSftResult {
  if (!Number.isInteger(o.count) || o.count < 1)
    throw new LabError('INVALID_PARAMS', `count: ${o.count} is not a positive integer`);
  const dir = resolve(o.checkpoint);
  let tokenizer: ReturnType<typeof loadTokenizerFile>;
  try {
    tokenizer = loadTokenizerFile(dir);
  } catch (error) {
    throw new LabError('INVALID_PARAMS', `--checkpoint ${dir}: ${(error as Error).message}`);
  }
  const sha = hashFile(join(dir, 'tokenizer.json')).sha256;
  const like = readSftSamples(o.like)[0];
  if (!like) throw new LabError('INVALID_PARAMS', `${o.like}: no SFT sample to take the layout from`);
  if (like.tokenizer !== sha)
    throw new LabError(
      'INVALID_PARAMS',
      `${o.like}:1: made for tokenizer ${like.tokenizer.slice(0, 12)}…, not ${dir}/tokenizer.json (${sha.slice(0, 12)}…)`,
    );
  if (like.protocol !== 'hermes')
    throw new LabError(
      'INVALID_PARAMS',
      `${o.like}:1: protocol '${like.protocol}'; drills are written as hermes tool calls`,
    );
  const layout: DrillLayout = {
    system: systemPromptOf(like, (ids) => tokenizer.decode(ids), o.like),
    protocol: createHermesProtocol(),
    encode: (text) => tokenizer.encode(text),
    sha,
  };
  const samples = Array.from({ length: o.count }, (_, d) => drillSample(d, o.seed ?? DRILL_SFT_SEED, layout));
  const writer = new SftSampleWriter(o.out);
  try {
    writer.write(samples);
  } finally {
    writer.close();
  }
  const tokens = samples.reduce((n, x) => n + x.ids.length, 0);
  const lossTokens = samples.reduce((n, x) => n + x.mask.reduce<number>((m, v) => m + v, 0), 0);
  return { samples: samples.length, tokens, lossTokens, out: resolve(o.out) };
}
