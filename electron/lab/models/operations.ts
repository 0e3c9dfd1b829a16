/**
 * What `t1lab model ...` does, as functions: create a checkpoint, describe it, export its graph, check
 * sampling against scoring, benchmark. These run in the calling process (the CLI); the app goes through
 * the policy worker instead (handlers.ts), since onnxruntime never runs in main or the web host.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { inspectCheckpoint, saveCheckpoint, type CheckpointSummary } from '../../../native/model/checkpoint';
import type { CheckReport } from '../../../native/model/check';
import {
  configFromPreset,
  countActiveParameters,
  countParameters,
  type ConfigOverrides,
  type ModelConfig,
  type PresetName,
} from '../../../native/model/config';
import { initParameters } from '../../../native/model/init';
import { GgufExportError, exportGgufFromHf } from '../../../native/model/gguf/from-hf';
import { HfCheckpointError, isHfCheckpoint } from '../../../native/model/hf/hf-checkpoint';
import { HF_ARCHITECTURE_OF, type HfFamily } from '../../../native/model/hf/hf-config';
import { ExportHfError, exportHf } from '../../../native/model/hf/export-hf';
import { summarizeHf } from '../../../native/model/hf/hf-summary';
import type { ModelBenchOptions, ModelBenchResult } from '../../../native/model/bench';
import type { MemoryUse } from '../../../native/model/memory-fit';
import { openCheckpoint, PolicyCheckpointError, type OpenedCheckpoint } from '../../../native/model/policy-checkpoint';
import { buildSamplingGraph } from '../../../native/model/sampling-graph';
import { samplingExpertCompute } from '../../../native/model/policy-model';
import { externalDataThreshold } from '../../../native/onnx/external-data';
import { trainBpe } from '../../../native/model/tokenizer';
import { LabError } from '../../ipc/common/errors';
import { appVersion } from '../app-paths';
import { defaultCorpus } from './default-corpus';

export interface InitOptions {
  preset: PresetName;
  out: string;
  seed: number;
  overrides: ConfigOverrides;
  /** Text files to train the tokenizer on (default: a built-in synthetic terminal corpus). */
  corpus: string[];
  onProgress?: (merges: number, target: number) => void;
}

export interface InitResult {
  path: string;
  preset: PresetName;
  seed: number;
  parameters: number;
  activeParameters: number;
  tokenizerVocab: number;
  config: ModelConfig;
  files: { name: string; bytes: number; sha256: string }[];
}

export function initCheckpoint(o: InitOptions): InitResult {
  const asked = configFromPreset(o.preset, o.overrides);
  const corpus = o.corpus.length ? o.corpus.map((f) => readFileSync(f, 'utf8')) : defaultCorpus();
  const trained = trainBpe({
    corpus,
    vocabSize: asked.vocab_size,
    onProgress: (p) => o.onProgress?.(p.merges, p.targetMerges),
  });
  // A small corpus runs out of merges before the preset's vocabulary (micro: 7933 of 8192). Embedding rows
  // that no token maps to would still be sampled (ids the tokenizer cannot decode), so the model's
  // vocabulary is the tokenizer's.
  const config: ModelConfig = { ...asked, vocab_size: Math.min(asked.vocab_size, trained.stats.vocabSize) };
  const parameters = initParameters(config, o.seed);
  const saved = saveCheckpoint(o.out, {
    config,
    tokenizer: trained.json,
    tokenizerConfig: trained.config,
    parameters,
    labVersion: appVersion(),
    metadata: { preset: o.preset, seed: o.seed },
  });
  return {
    path: saved.dir,
    preset: o.preset,
    seed: o.seed,
    parameters: countParameters(config),
    activeParameters: countActiveParameters(config),
    tokenizerVocab: trained.stats.vocabSize,
    config,
    files: Object.entries(saved.manifest.files).map(([name, f]) => ({ name, bytes: f.bytes, sha256: f.sha256 })),
  };
}

export function describeCheckpoint(
  dir: string,
  verify: boolean,
): CheckpointSummary & { activeParameters: number | null } {
  const summary = isHfCheckpoint(dir) ? summarizeHf(dir, { verify }) : inspectCheckpoint(dir, { verify });
  if (summary.status === 'invalid' && summary.error) throw new LabError('INVALID_PARAMS', summary.error.message);
  let active: number | null = null;
  if (summary.config) active = countActiveParameters(summary.config as ModelConfig);
  return { ...summary, activeParameters: active };
}

/** Open for use; errors name the file and field, as LabError('INVALID_PARAMS'). */
export function openForUse(dir: string, memory: readonly MemoryUse[] = ['sampling']): OpenedCheckpoint {
  try {
    return openCheckpoint(dir, { memory });
  } catch (error) {
    if (error instanceof PolicyCheckpointError || error instanceof Error)
      throw new LabError('INVALID_PARAMS', error.message);
    throw error;
  }
}

function ours(
  dir: string,
  what: string,
  memory: readonly MemoryUse[] = ['sampling'],
): Extract<OpenedCheckpoint, { kind: 't1-moe' }> {
  const c = openForUse(dir, memory);
  if (c.kind !== 't1-moe')
    throw new LabError(
      'CONFLICT',
      `${dir} is an external ONNX checkpoint: ${what} needs a t1-moe checkpoint (routing outputs, weights)`,
    );
  return c;
}

export interface ExportResult {
  path: string;
  bytes: number;
  /** The weights' file when they are ONNX external data (a model past protobuf's 2 GiB), else null. */
  externalData: { path: string; bytes: number } | null;
  nodes: number;
  inputs: string[];
  outputs: string[];
  buildMs: number;
}

/**
 * Write the sampling graph with its weights for other onnxruntime clients: the common LLM layout (logits
 * for every position) plus our routing outputs. OUT ending in .onnx is the file; otherwise OUT is a folder
 * that gets model.onnx, tokenizer files and a Hugging Face style config.json (it loads back as an
 * external checkpoint).
 */
export function exportOnnx(dir: string, out: string): ExportResult {
  const c = ours(dir, 'export-onnx');
  let file = out;
  if (!out.endsWith('.onnx')) {
    mkdirSync(out, { recursive: true });
    file = join(out, 'model.onnx');
    for (const name of ['tokenizer.json', 'tokenizer_config.json'])
      if (existsSync(join(dir, name))) copyFileSync(join(dir, name), join(out, name));
    const hf = {
      architectures: ['T1MoeForCausalLM'],
      model_type: 't1-moe-onnx',
      vocab_size: c.config.vocab_size,
      hidden_size: c.config.hidden_size,
      num_hidden_layers: c.config.num_hidden_layers,
      num_attention_heads: c.config.num_attention_heads,
      num_key_value_heads: c.config.num_key_value_heads,
      head_dim: c.config.head_dim,
      max_position_embeddings: c.config.max_position_embeddings,
    };
    writeFileSync(join(out, 'config.json'), JSON.stringify(hf, null, 2) + '\n');
  }
  // Past protobuf's 2 GiB the weights go to FILE.data beside the model (ONNX external data).
  let weightBytes = 0;
  for (const w of c.weights.values()) weightBytes += w.byteLength;
  const externalData = weightBytes > externalDataThreshold() ? `${file}.data` : null;
  const built = buildSamplingGraph(c.config, c.weights, {
    expertCompute: samplingExpertCompute(c.config),
    allLogits: true,
    ...(externalData ? { externalData } : {}),
  });
  writeFileSync(file, built.bytes);
  return {
    path: file,
    bytes: statSync(file).size,
    externalData: externalData ? { path: externalData, bytes: statSync(externalData).size } : null,
    nodes: built.nodeCount,
    inputs: built.inputNames.filter((n) => !n.includes('.weight') && !n.startsWith('layers.')),
    outputs: built.outputNames,
    buildMs: built.buildMs,
  };
}

export async function checkCheckpoint(
  dir: string,
  options: { samples: number; tokens: number; seed: number; threads?: number; provider?: 'auto' | 'cpu' | 'cuda' },
): Promise<CheckReport> {
  const c = ours(dir, 'model check');
  const tokenizer = c.tokenizer!;
  const texts = [
    '<|im_start|>user\nList the files in /app and show the largest one.<|im_end|>\n<|im_start|>assistant\n',
    '<|im_start|>user\nThe tests fail with an import error. Fix it.<|im_end|>\n<|im_start|>assistant\n',
    '$ make -j4\n',
    '<|im_start|>user\nCount the lines of data.csv<|im_end|>\n<|im_start|>assistant\n',
  ];
  const prompts = Array.from({ length: options.samples }, (_, i) => tokenizer.encode(texts[i % texts.length]!));
  // onnxruntime loads on use: the CLI bundle also hosts `t1lab serve`, which must stay free of native modules.
  const { checkSamplingAgainstScoring } = await import('../../../native/model/check');
  return checkSamplingAgainstScoring(c.config, c.weights, {
    prompts,
    newTokens: options.tokens,
    seed: options.seed,
    threads: options.threads,
    provider: options.provider,
  });
}

export async function benchCheckpoint(
  dir: string,
  options: ModelBenchOptions,
): Promise<ModelBenchResult & { parameters: number }> {
  const c = ours(dir, 'model bench');
  const { runModelBenchmark } = await import('../../../native/model/bench');
  const result = await runModelBenchmark(c.config, c.weights, options);
  return { ...result, parameters: countParameters(c.config) };
}

export interface ExportHfResult {
  path: string;
  architecture: string;
  files: string[];
}

/** `model export-hf`: the checkpoint in a published layout (native/model/hf/export-hf.ts picks the family). */
export function exportHfCheckpoint(
  dir: string,
  out: string,
  options: { architecture?: string; dtype?: string },
): ExportHfResult {
  const c = ours(dir, 'export-hf', []); // weights only: no graph, no session
  const family = options.architecture && options.architecture !== 'auto' ? hfFamilyOf(options.architecture) : undefined;
  const dtype = ({ f32: 'F32', bf16: 'BF16', f16: 'F16' } as const)[
    (options.dtype ?? 'f32').toLowerCase() as 'f32' | 'bf16' | 'f16'
  ];
  if (!dtype) throw new LabError('INVALID_PARAMS', `--dtype: '${options.dtype}' is not one of f32, bf16, f16`);
  try {
    const written = exportHf(c.config, c.weights, out, {
      family,
      dtype,
      sourceDir: dir,
      eosTokenIds: c.hf?.eosTokenIds ?? c.tokenizer?.stopTokenIds,
    });
    return { path: written.path, architecture: HF_ARCHITECTURE_OF[written.family], files: written.files };
  } catch (error) {
    if (error instanceof ExportHfError) throw new LabError('INVALID_PARAMS', error.message);
    throw error;
  }
}

function hfFamilyOf(name: string): HfFamily {
  const byArch = Object.entries(HF_ARCHITECTURE_OF).find(([, a]) => a.toLowerCase() === name.toLowerCase());
  const family = (byArch?.[0] ?? name.toLowerCase().replace('-', '_')) as HfFamily;
  if (!(family in HF_ARCHITECTURE_OF))
    throw new LabError(
      'INVALID_PARAMS',
      `--architecture: '${name}' is not one of auto, ${Object.keys(HF_ARCHITECTURE_OF).join(', ')}`,
    );
  return family;
}

export interface ExportGgufResult {
  path: string;
  bytes: number;
  tensors: number;
  architecture: string;
}

/**
 * `model export-gguf`: a published folder is converted as it is; the lab's own checkpoints go through
 * export-hf first (into a temporary folder), so llama.cpp reads the same layout either way.
 */
export function exportGgufCheckpoint(dir: string, out: string, options: { dtype?: string }): ExportGgufResult {
  const dtype = (options.dtype ?? 'f32').toLowerCase();
  if (dtype !== 'f32' && dtype !== 'f16')
    throw new LabError('INVALID_PARAMS', `--dtype: '${options.dtype}' is not one of f32, f16`);
  let source = dir;
  let temp: string | null = null;
  try {
    if (!isHfCheckpoint(dir)) {
      temp = mkdtempSync(join(tmpdir(), 't1lab-gguf-'));
      source = exportHfCheckpoint(dir, join(temp, 'hf'), {}).path;
    }
    const written = exportGgufFromHf(source, out, { dtype, name: basename(resolve(dir)) });
    return { path: resolve(out), ...written };
  } catch (error) {
    if (error instanceof GgufExportError || error instanceof HfCheckpointError)
      throw new LabError('INVALID_PARAMS', error.message);
    throw error;
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}
