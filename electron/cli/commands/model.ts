/**
 * `t1lab model init|list|info|sample|check|bench|export-onnx|convert`: the local MoE policy from a shell.
 * `--json` prints exactly the documented shape on stdout; progress goes to stderr.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { ConfigOverrides, PresetName } from '../../../native/model/config';
import { LabError } from '../../ipc/common/errors';
import { policyWorker } from '../../lab/models/policy-engine';
import {
  benchCheckpoint,
  checkCheckpoint,
  describeCheckpoint,
  exportGgufCheckpoint,
  exportHfCheckpoint,
  exportOnnx,
  initCheckpoint,
} from '../../lab/models/operations';
import { convertCheckpoint } from '../../lab/models/convert';
import { bundledModelsDir, listModels } from '../../lab/models/handlers';
import { labDataDir } from '../../lab/paths';
import { WorkerRegistry } from '../../lab/worker-registry';
import { forkLauncher } from '../../processes/launcher';
import { UsageError } from '../errors';
import { formatBytes, printJson, progressBar, table, type Io } from '../output';

const collect = (value: string, previous: string[]) => [...previous, value];

function intOption(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${name}: '${value}' is not an integer >= ${min}`);
  return n;
}

function numberOption(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new UsageError(`${name}: '${value}' is not a number`);
  return n;
}

/** `--set key=value` pairs as config overrides (numbers and booleans parsed). */
export function parseOverrides(pairs: string[]): ConfigOverrides {
  const raw: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set: '${pair}' is not key=value`);
    const key = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    raw[key] =
      value === 'true' ? true : value === 'false' ? false : Number.isNaN(Number(value)) ? value : Number(value);
  }
  const parsed = ConfigOverrides.safeParse(raw);
  if (!parsed.success)
    throw new UsageError(
      `--set: ${parsed.error.issues.map((i) => `${i.path.join('.') || i.message}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

export function registerModel(program: Command, io: Io): void {
  const model = program
    .command('model')
    .description('the local MoE policy: create, inspect, sample, check, benchmark, export checkpoints');
  registerConvert(model, io);
  registerInit(model, io);
  registerList(model, io);
  registerInfo(model, io);
  registerSample(model, io);
  registerCheck(model, io);
  registerBench(model, io);
  registerExportOnnx(model, io);
  registerExportHf(model, io);
  registerExportGguf(model, io);
}

/** `model convert`: a model-only copy at another dtype. */
function registerConvert(model: Command, io: Io): void {
  model
    .command('convert <dir> <out>')
    .description(
      'a model-only copy of a checkpoint stored as f16, bf16 or f32 (f16 halves the file; loading converts back)',
    )
    .option('--dtype <dtype>', 'f16 | bf16 | f32', 'f16')
    .option('--json', 'print the result as JSON')
    .action((dir: string, out: string, o: { dtype: string; json?: boolean }) => {
      const dtype = ({ f16: 'F16', bf16: 'BF16', f32: 'F32' } as const)[
        o.dtype.toLowerCase() as 'f16' | 'bf16' | 'f32'
      ];
      if (!dtype) throw new UsageError(`--dtype: '${o.dtype}' is not one of f16, bf16, f32`);
      const r = convertCheckpoint(resolve(dir), resolve(out), dtype);
      if (o.json) return printJson(io, r);
      io.out(`wrote ${r.path} (${r.dtype}, ${formatBytes(r.bytes)}) from ${r.from}\n`);
    });
}

/** `model init`: fresh weights and a tokenizer trained for them. */
function registerInit(model: Command, io: Io): void {
  model
    .command('init')
    .description('create a checkpoint with fresh weights and a tokenizer trained for it')
    .option('--preset <name>', 'nano (~3M params) or micro (~13M)', 'nano')
    .requiredOption('--out <dir>', 'checkpoint folder to create')
    .option('--seed <n>', 'weights seed', '0')
    .option(
      '--set <key=value>',
      'override a config.json field (repeatable), e.g. --set num_hidden_layers=2',
      collect,
      [],
    )
    .option(
      '--corpus <file>',
      'text file to train the tokenizer on (repeatable; default: a built-in terminal corpus)',
      collect,
      [],
    )
    .option('--json', 'print the result as JSON')
    .action((o: { preset: string; out: string; seed: string; set: string[]; corpus: string[]; json?: boolean }) => {
      const preset = PresetName.safeParse(o.preset);
      if (!preset.success)
        throw new UsageError(`--preset: '${o.preset}' is not one of ${PresetName.options.join(', ')}`);
      const bar = progressBar(io, 'tokenizer', 1);
      let result;
      try {
        result = initCheckpoint({
          preset: preset.data,
          out: resolve(o.out),
          seed: intOption('--seed', o.seed, 0),
          overrides: parseOverrides(o.set),
          corpus: o.corpus,
          onProgress: (merges, target) => {
            bar.setTotal(target);
            bar.update(merges, 'merges');
          },
        });
      } catch (error) {
        if (error instanceof UsageError) throw error;
        throw new LabError('INVALID_PARAMS', (error as Error).message);
      } finally {
        bar.stop();
      }
      if (o.json) return printJson(io, result);
      io.out(
        `created ${result.path}: ${result.preset}, ${(result.parameters / 1e6).toFixed(2)}M parameters (${(result.activeParameters / 1e6).toFixed(2)}M active), tokenizer ${result.tokenizerVocab} tokens\n`,
      );
    });
}

/** `model list`: the checkpoints the Models page lists. */
function registerList(model: Command, io: Io): void {
  model
    .command('list')
    .description(
      "every checkpoint the Models page lists: the lab's own, training runs', added folders and the ones shipped with the app",
    )
    .option('--folder <dir>', 'also search this folder (repeatable)', collect, [])
    .option('--json', 'print {roots, checkpoints} as JSON')
    .action((o: { folder: string[]; json?: boolean }) => {
      const list = listModels(
        labDataDir(),
        o.folder.map((f) => resolve(f)),
      );
      if (o.json) return printJson(io, list);
      const bundled = bundledModelsDir();
      const rows: (string | number)[][] = [['name', 'status', 'parameters', 'size', 'path']];
      for (const c of list.checkpoints) {
        rows.push([
          c.name + (c.path.startsWith(bundled) ? ' (bundled)' : ''),
          c.status,
          c.parameters === null ? '-' : `${(c.parameters / 1e6).toFixed(2)}M`,
          formatBytes(c.totalBytes),
          c.path,
        ]);
      }
      io.out(table(rows));
    });
}

/** `model info`: config, size, files and hashes. */
function registerInfo(model: Command, io: Io): void {
  model
    .command('info <dir>')
    .description('describe a checkpoint: config, size, files and hashes')
    .option('--verify', 'check every file against its sha256')
    .option('--json', 'print the summary as JSON')
    .action((dir: string, o: { verify?: boolean; json?: boolean }) => {
      const s = describeCheckpoint(resolve(dir), !!o.verify);
      if (o.json) return printJson(io, s);
      const rows: (string | number)[][] = [['field', 'value']];
      rows.push(['path', s.path], ['format', s.format], ['status', s.status + (s.error ? `: ${s.error.message}` : '')]);
      if (s.parameters !== null)
        rows.push([
          'parameters',
          `${(s.parameters / 1e6).toFixed(2)}M (${((s.activeParameters ?? 0) / 1e6).toFixed(2)}M active)`,
        ]);
      if (s.config) for (const [k, v] of Object.entries(s.config)) rows.push([k, String(v)]);
      if (s.tokenizer) rows.push(['tokenizer', `${s.tokenizer.vocabSize} tokens`]);
      io.out(table(rows));
      io.out(
        table([['file', 'bytes', 'sha256'], ...s.files.map((f) => [f.name, formatBytes(f.bytes), f.sha256 ?? '-'])]),
      );
    });
}

/** `model sample`: tokens with log-probs and routing, from the policy worker. */
function registerSample(model: Command, io: Io): void {
  model
    .command('sample <dir>')
    .description('sample from a checkpoint (in the policy worker): tokens with log-probs and routing')
    .requiredOption('--prompt <text>', 'prompt text (encoded with the checkpoint tokenizer)')
    .option('--max-tokens <n>', 'tokens to generate', '64')
    .option('--temperature <t>', '0 is greedy', '1')
    .option('--top-p <p>', 'nucleus sampling', '1')
    .option('--top-k <k>', 'keep the k most likely tokens (0: off)', '0')
    .option('--seed <n>', 'sampling seed (same seed, same tokens)')
    .option('--provider <name>', 'auto, cpu or cuda', 'auto')
    .option('--threads <n>', 'onnxruntime intra-op threads (0: default)')
    .option('--json', 'print the result as JSON')
    .action(async (dir: string, o: SampleOptions) => {
      const provider = String(o.provider);
      if (!['auto', 'cpu', 'cuda'].includes(provider))
        throw new UsageError(`--provider: '${provider}' is not auto, cpu or cuda`);
      const result = await sampleInWorker(resolve(dir), provider as 'auto', o);
      if (o.json) return printJson(io, result);
      io.out(`${result.text}\n`);
      io.err(
        `[${result.tokens.length} tokens, ${result.stopReason}, seed ${result.seed}, ${result.provider}${result.providerFallbackReason ? ` (${result.providerFallbackReason})` : ''}]\n`,
      );
    });
}

type SampleOptions = Record<string, string | boolean | undefined>;

/** Loads the checkpoint in a policy worker of its own, generates once, and stops the worker. */
async function sampleInWorker(checkpoint: string, provider: 'auto' | 'cpu' | 'cuda', o: SampleOptions) {
  const workers = new WorkerRegistry(forkLauncher);
  try {
    const worker = policyWorker(workers);
    const info = await worker.call(
      'policy.load',
      {
        checkpoint,
        settings: {
          provider,
          intraOpThreads: o.threads === undefined ? undefined : intOption('--threads', String(o.threads), 0),
        },
      },
      { timeoutMs: 300_000 },
    );
    const r = await worker.call('policy.generate', {
      checkpoint,
      prompt: String(o.prompt),
      withText: true,
      options: {
        maxTokens: intOption('--max-tokens', String(o.maxTokens), 64, 1),
        temperature: numberOption('--temperature', String(o.temperature), 1),
        topP: numberOption('--top-p', String(o.topP), 1),
        topK: intOption('--top-k', String(o.topK), 0),
        seed: o.seed === undefined ? undefined : intOption('--seed', String(o.seed), 0),
        stopTokenIds: info.eosTokenIds,
      },
    });
    const tokens = r.tokens.map((t, i) => ({
      id: t.id,
      text: r.tokenTexts?.[i] ?? '',
      logprob: t.logprob,
      routing: t.routing,
    }));
    return {
      checkpoint,
      prompt: String(o.prompt),
      promptIds: r.promptIds,
      text: tokens.map((t) => t.text).join(''),
      tokens,
      stopReason: r.stopReason,
      seed: r.seed,
      provider: info.provider,
      providerFallbackReason: info.providerFallbackReason,
      timing: r.timing,
    };
  } finally {
    await workers.stopAll();
  }
}

/** `model check`: KV-cache sampling against full-sequence scoring. */
function registerCheck(model: Command, io: Io): void {
  model
    .command('check <dir>')
    .description('compare KV-cache sampling with full-sequence scoring (log-probs, routing, routing replay)')
    .option('--samples <n>', 'sequences sampled together', '4')
    .option('--tokens <n>', 'tokens sampled per sequence', '32')
    .option('--seed <n>', 'sampling seed', '0')
    .option('--provider <name>', 'auto, cpu or cuda (both graphs; the report says where each ran)', 'cpu')
    .option('--json', 'print the report as JSON')
    .action(
      async (dir: string, o: { samples: string; tokens: string; seed: string; provider: string; json?: boolean }) => {
        if (!['auto', 'cpu', 'cuda'].includes(o.provider))
          throw new UsageError(`--provider: '${o.provider}' is not auto, cpu or cuda`);
        const report = await checkCheckpoint(resolve(dir), {
          provider: o.provider as 'auto' | 'cpu' | 'cuda',
          samples: intOption('--samples', o.samples, 4, 1),
          tokens: intOption('--tokens', o.tokens, 32, 1),
          seed: intOption('--seed', o.seed, 0),
        });
        if (o.json) return printJson(io, report);
        io.out(
          table([
            ['figure', 'value'],
            ['tokens', report.tokens],
            ['max |logp sample - logp score|', report.maxAbsLogprobDiff.toExponential(2)],
            ['mean |logp sample - logp score|', report.meanAbsLogprobDiff.toExponential(2)],
            ['routing agreement', report.routingAgreement.toFixed(4)],
            ['routing agreement with replay', report.routingAgreementWithReplay.toFixed(4)],
            ['providers (sampler / scorer)', `${report.sampler.provider} / ${report.scorer.provider}`],
          ]),
        );
        if (report.maxAbsLogprobDiff >= 1e-4 || report.routingAgreementWithReplay !== 1)
          throw new LabError('INTERNAL', 'sampling and scoring disagree beyond tolerance (1e-4, replayed routing 1)');
      },
    );
}

/** `model bench`: throughput against the GEMM roofline. */
function registerBench(model: Command, io: Io): void {
  model
    .command('bench <dir>')
    .description('throughput of this checkpoint vs the fp32 GEMM roofline of this machine')
    .option('--quick', 'fewer repetitions and shorter sequences')
    .option('--threads <n>', 'onnxruntime intra-op threads (0: default)')
    .option('--json', 'print the result as JSON')
    .action(async (dir: string, o: { quick?: boolean; threads?: string; json?: boolean }) => {
      const result = await benchCheckpoint(resolve(dir), {
        quick: !!o.quick,
        threads: o.threads === undefined ? undefined : intOption('--threads', o.threads, 0),
        onFigure: (f) =>
          io.err(
            `${f.name}: ${f.value.toFixed(f.value < 10 ? 2 : 0)} ${f.unit}${f.rooflineFraction !== undefined ? ` (${(f.rooflineFraction * 100).toFixed(1)}% of roofline)` : ''}\n`,
          ),
      });
      if (o.json) return printJson(io, result);
      io.out(
        table([
          ['figure', 'value', 'unit', 'of roofline', 'vs baseline', 'goal'],
          ...result.figures.map((f) => [
            f.name,
            f.value.toFixed(f.value < 10 ? 2 : 0),
            f.unit,
            f.rooflineFraction === undefined ? '' : `${(f.rooflineFraction * 100).toFixed(1)}%`,
            f.baseline && f.ratio !== undefined
              ? `${f.ratio.toFixed(2)}x ${f.baseline.name} (${f.baseline.value.toFixed(0)} ${f.baseline.unit})`
              : '',
            f.goal ? `${f.goal}: ${f.met ? 'met' : 'not met'}` : '',
          ]),
        ]),
      );
      for (const n of result.notes) io.out(`  ${n}\n`);
    });
}

/** `model export-onnx`: model.onnx for other onnxruntime clients. */
function registerExportOnnx(model: Command, io: Io): void {
  model
    .command('export-onnx <dir> <out>')
    .description('write model.onnx (common LLM layout + routing outputs) for other onnxruntime clients')
    .option('--json', 'print the result as JSON')
    .action((dir: string, out: string, o: { json?: boolean }) => {
      const result = exportOnnx(resolve(dir), resolve(out));
      if (o.json) return printJson(io, result);
      io.out(
        `wrote ${result.path} (${formatBytes(result.bytes)}, ${result.nodes} nodes)${result.externalData ? ` and its weights ${result.externalData.path} (${formatBytes(result.externalData.bytes)}, ONNX external data)` : ''}\n`,
      );
    });
}

/** `model export-hf`: a published Hugging Face layout. */
function registerExportHf(model: Command, io: Io): void {
  model
    .command('export-hf <dir> <out>')
    .description(
      'write a checkpoint in a published Hugging Face layout (config.json, safetensors, tokenizer) for transformers, vLLM and SGLang',
    )
    .option(
      '--architecture <name>',
      'auto | qwen3_moe | mixtral | qwen2_moe | olmoe | qwen3 | qwen2 | llama (auto: the family that computes exactly this model)',
      'auto',
    )
    .option('--dtype <dtype>', 'f32 | bf16 | f16', 'f32')
    .option('--json', 'print the result as JSON')
    .action((dir: string, out: string, o: { architecture: string; dtype: string; json?: boolean }) => {
      const result = exportHfCheckpoint(resolve(dir), resolve(out), { architecture: o.architecture, dtype: o.dtype });
      if (o.json) return printJson(io, result);
      io.out(`wrote ${result.path} as ${result.architecture} (${result.files.join(', ')})\n`);
    });
}

/** `model export-gguf`: a GGUF file for llama.cpp. */
function registerExportGguf(model: Command, io: Io): void {
  model
    .command('export-gguf <dir> <out>')
    .description('write a GGUF file for llama.cpp, Ollama and LM Studio (from a published folder or a lab checkpoint)')
    .option('--dtype <dtype>', 'f32 | f16', 'f32')
    .option('--json', 'print the result as JSON')
    .action((dir: string, out: string, o: { dtype: string; json?: boolean }) => {
      const result = exportGgufCheckpoint(resolve(dir), resolve(out), { dtype: o.dtype });
      if (o.json) return printJson(io, result);
      io.out(
        `wrote ${result.path} (${formatBytes(result.bytes)}, ${result.tensors} tensors, architecture ${result.architecture})\n`,
      );
    });
}
