/**
 * `npm run bench -- llamacpp`: the lab's engine against llama.cpp (node-llama-cpp 3.21.1, CPU) on the same
 * weights and threads: a random Qwen3-MoE-shaped model of ~65M parameters (8 layers, hidden 512, 16
 * experts of 256, top-4, per-head QK-norm), written by `export-hf` and converted by `export-gguf` (F32).
 * Decode tokens/s at batch 1 and with 8 parallel sequences, and prefill of 512 tokens. llama.cpp runs
 * with its defaults for speed (F16 KV cache, flash attention auto), as a user would.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama } from 'node-llama-cpp';
import { countParameters, parseModelConfig, PRESETS } from '../../native/model/config';
import { BatchDecoder } from '../../native/model/decoder';
import { exportGgufFromHf } from '../../native/model/gguf/from-hf';
import { exportHf } from '../../native/model/hf/export-hf';
import { initParameters } from '../../native/model/init';
import { GenerateOptions } from '../../native/model/policy-api';
import { loadT1Policy } from '../../native/model/policy-model';
import { seededUniform } from '../../native/util/random';
import { trainByteLevelBpe } from '../helpers/bpe';
import type { Bench } from './reporter';

const bench: Bench = {
  name: 'llamacpp',
  about:
    'issue 22: decode (batch 1, 8 sequences) and 512-token prefill, lab engine vs llama.cpp, same weights and threads',
  async run(report, { quick }) {
    const config = parseModelConfig({
      ...PRESETS.micro,
      vocab_size: 8192,
      hidden_size: 512,
      num_hidden_layers: quick ? 2 : 8,
      num_attention_heads: 8,
      num_key_value_heads: 4,
      head_dim: 64,
      num_experts: 16,
      num_experts_per_tok: 4,
      moe_intermediate_size: 256,
      max_position_embeddings: 1024,
      qk_norm: 'head',
    });
    // One thread by default: llama.cpp's worker threads spin between tokens, and on a shared 2-core machine two
    // spinning threads made it ~10x slower than one (T1LAB_BENCH_THREADS sets both sides).
    const threads = Number(process.env.T1LAB_BENCH_THREADS) || Math.min(1, availableParallelism());
    const root = mkdtempSync(join(tmpdir(), 't1-bench-llamacpp-'));
    try {
      const weights = initParameters(config, 1);
      // A small BPE vocabulary for the GGUF (ids are fed directly; rows past it are padding tokens).
      writeFileSync(
        join(root, 'tokenizer.json'),
        JSON.stringify(trainByteLevelBpe(['ls -la /tmp && cat notes.txt | grep error'], { merges: 20 })),
      );
      const hfDir = join(root, 'hf');
      exportHf(config, weights, hfDir, { sourceDir: root, family: 'qwen3_moe' });
      const gguf = join(root, 'model.gguf');
      exportGgufFromHf(hfDir, gguf, { dtype: 'f32' });
      report.note(
        `model: ${(countParameters(config) / 1e6).toFixed(1)}M parameters, Qwen3-MoE-shaped, ${threads} threads on both sides`,
      );
      const u = seededUniform(3);
      const prompt = (n: number) => Array.from({ length: n }, () => Math.floor(u() * config.vocab_size));
      const newTokens = quick ? 16 : 48;

      // ---- the lab ----
      const policy = await loadT1Policy(config, weights, { provider: 'cpu', intraOpThreads: threads });
      const decoder = new BatchDecoder(policy.decoder, { maxBatch: 8 });
      const greedy = (p: number[], max: number) =>
        decoder.generate(p, { ...GenerateOptions.parse({ maxTokens: max, temperature: 0 }), seed: 1 });
      await greedy(prompt(8), 4); // warm-up
      const one = await greedy(prompt(16), newTokens);
      const labB1 = one.tokens.length / (one.timing.decodeMs / 1000);
      let started = performance.now();
      const eight = await Promise.all(Array.from({ length: 8 }, () => greedy(prompt(16), newTokens)));
      const labB8 = eight.reduce((n, r) => n + r.tokens.length, 0) / ((performance.now() - started) / 1000);
      const pre = await greedy(prompt(512), 1);
      const labPrefill = 512 / (pre.timing.prefillMs / 1000);
      await decoder.close();
      await policy.decoder.session.release();

      // ---- llama.cpp ----
      const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
      const model = await llama.loadModel({ modelPath: gguf });
      const context = await model.createContext({ contextSize: 8 * 640, sequences: 8, threads, batchSize: 512 });
      const generate = async (seq: ReturnType<typeof context.getSequence>, p: number[], n: number) => {
        let count = 0;
        for await (const token of seq.evaluate(p as never, { temperature: 0 })) {
          void token;
          if (++count >= n) break;
        }
        return count;
      };
      const seqs = Array.from({ length: 8 }, () => context.getSequence());
      await generate(seqs[0]!, prompt(8), 4);
      await seqs[0]!.clearHistory();
      await seqs[0]!.evaluateWithoutGeneratingNewTokens(prompt(16) as never);
      started = performance.now();
      const b1Count = await generate(seqs[0]!, [1], newTokens);
      const llamaB1 = b1Count / ((performance.now() - started) / 1000);
      await seqs[0]!.clearHistory();
      await Promise.all(seqs.map((s) => s.evaluateWithoutGeneratingNewTokens(prompt(16) as never)));
      started = performance.now();
      const counts = await Promise.all(seqs.map((s) => generate(s, [1], newTokens)));
      const llamaB8 = counts.reduce((a, b) => a + b, 0) / ((performance.now() - started) / 1000);
      for (const s of seqs) await s.clearHistory();
      started = performance.now();
      await seqs[0]!.evaluateWithoutGeneratingNewTokens(prompt(512) as never);
      const llamaPrefill = 512 / ((performance.now() - started) / 1000);
      await context.dispose();
      await model.dispose();

      const row = (name: string, lab: number, ref: number, goal?: number) =>
        report.figure({
          name,
          value: lab,
          unit: 'tok/s',
          baseline: { name: 'llama.cpp', value: ref },
          ratio: lab / ref,
          ...(goal === undefined ? {} : { goal: `>= ${goal}x llama.cpp`, met: lab / ref >= goal }),
        });
      row('decode, batch 1', labB1, llamaB1, 0.5);
      row('decode, 8 sequences (total)', labB8, llamaB8, 1.0);
      row('prefill, 512 tokens', labPrefill, llamaPrefill);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};

export default bench;
