/**
 * `npm run bench -- serve [--quick]`: `t1lab policy serve` against llama.cpp (node-llama-cpp 3.21.1, CPU)
 * on the same weights: the bundled models/nano-sft, and its GGUF export (`model export-gguf`, F32). Output
 * tokens/s with 1, 8 and 32 requests at once, each a different chat prompt (~250 tokens, the lab's compact
 * agent prompt and a task) and a fixed number of new tokens (greedy, `ignore_eos`).
 *
 * The lab is measured end to end: HTTP requests to the server, which renders, tokenizes and hands them to
 * the policy worker that decodes them together. llama.cpp gets the same prompt ids in-process (no HTTP, no
 * template) on as many sequences of one context, which its batch decodes together: a baseline with less
 * work to do. Both use the same thread count (1 by default: llama.cpp's threads spin between steps and
 * stalled on this shared 2-core machine; T1LAB_BENCH_THREADS sets both). The two alternate per concurrency,
 * best of `rounds`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama } from 'node-llama-cpp';
import { chatml } from '../../electron/agent/chat/chatml';
import { compactHermesPrompt } from '../../electron/agent/protocol/hermes';
import { exportGgufCheckpoint } from '../../electron/lab/models/operations';
import { ServedModel } from '../../electron/lab/policy-serve/served-model';
import { startPolicyServer } from '../../electron/lab/policy-serve/server';
import { WorkerRegistry } from '../../electron/lab/worker-registry';
import { policyContract } from '../../electron/processes/contracts/policy';
import { forkLauncher } from '../../electron/processes/launcher';
import { loadTokenizerFile } from '../../native/model/tokenizer';
import { REPO_ROOT } from '../helpers/cli';
import type { Bench } from './reporter';

const CHECKPOINT = join(REPO_ROOT, 'models', 'nano-sft');
const LEVELS = [1, 8, 32] as const;
/** The goals: at least llama.cpp's throughput with 8 and 32 requests, 0.8x of it with one. */
const GOALS: Record<(typeof LEVELS)[number], number> = { 1: 0.8, 8: 1.0, 32: 1.0 };

const SYSTEM = compactHermesPrompt({ maxTurns: 6, timeoutSec: 600, toolsInTemplate: false });
const TASKS = [
  'Count the lines of data.csv that contain "error" and write the count to count.txt.',
  'Rename every .txt file in the working directory to .md.',
  'Write the sum of the numbers in numbers.txt to total.txt.',
  'Extract archive.tar.gz into out/ and list what it held in files.txt.',
];
/** Request i's conversation: a distinct first line, so no two requests share more than a few prompt tokens. */
const messages = (i: number) => [
  { role: 'system' as const, content: `Session ${i}. ${SYSTEM}` },
  { role: 'user' as const, content: TASKS[i % TASKS.length]! },
];

const bench: Bench = {
  name: 'serve',
  about:
    'issue 37: policy serve (HTTP, batched) vs llama.cpp on the same weights, output tokens/s at 1, 8 and 32 requests',
  async run(report, { quick }) {
    const threads = Number(process.env.T1LAB_BENCH_THREADS) || 1;
    const newTokens = quick ? 24 : 96;
    const rounds = quick ? 1 : 2;
    const root = mkdtempSync(join(tmpdir(), 't1-bench-serve-'));
    const workers = new WorkerRegistry(forkLauncher);
    try {
      const gguf = exportGgufCheckpoint(CHECKPOINT, join(root, 'nano-sft.gguf'), { dtype: 'f32' });
      const tokenizer = loadTokenizerFile(CHECKPOINT);
      const promptIds = (i: number) => tokenizer.encode(chatml.render(messages(i), { addGenerationPrompt: true }));
      report.note(
        `models/nano-sft (GGUF ${gguf.architecture}, F32), ${promptIds(0).length}-token prompts, ${newTokens} new tokens per request, ${threads} thread(s) on both sides`,
      );

      // ---- the lab: the server in this process, the policy worker beside it ----
      const model = await ServedModel.load({
        checkpoint: CHECKPOINT,
        worker: workers.get('policy', policyContract),
        settings: { provider: 'cpu', maxBatch: 32, intraOpThreads: threads },
      });
      const server = await startPolicyServer({ model, host: '127.0.0.1', port: 0, maxConcurrency: 32 });
      const ask = async (i: number, max: number): Promise<number> => {
        const res = await fetch(`${server.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: model.id,
            messages: messages(i),
            temperature: 0,
            max_tokens: max,
            ignore_eos: true,
          }),
        });
        if (res.status !== 200) throw new Error(`policy serve answered ${res.status}: ${await res.text()}`);
        return ((await res.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens;
      };

      // ---- llama.cpp: one context, a sequence per concurrent request ----
      const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
      const llamaModel = await llama.loadModel({ modelPath: gguf.path });
      const context = await llamaModel.createContext({ contextSize: 32 * 512, sequences: 32, threads, batchSize: 512 });
      const seqs = Array.from({ length: 32 }, () => context.getSequence());
      const generate = async (s: number, i: number, max: number): Promise<number> => {
        const seq = seqs[s]!;
        await seq.clearHistory();
        let count = 0;
        for await (const token of seq.evaluate(promptIds(i) as never, { temperature: 0 })) {
          void token;
          if (++count >= max) break;
        }
        return count;
      };

      const timed = async (run: () => Promise<number[]>): Promise<number> => {
        const started = performance.now();
        const counts = await run();
        return counts.reduce((a, b) => a + b, 0) / ((performance.now() - started) / 1000);
      };
      // Warm-up on both sides (graph caches, first allocations, the HTTP connection pool).
      await Promise.all(Array.from({ length: 4 }, (_, i) => ask(100 + i, 4)));
      await Promise.all(Array.from({ length: 4 }, (_, i) => generate(i, 100 + i, 4)));
      try {
        for (const n of LEVELS) {
          let lab = 0;
          let ref = 0;
          for (let r = 0; r < rounds; r++) {
            const offset = 1000 * (r + 1) + n;
            lab = Math.max(
              lab,
              await timed(() => Promise.all(Array.from({ length: n }, (_, i) => ask(offset + i, newTokens)))),
            );
            ref = Math.max(
              ref,
              await timed(() => Promise.all(Array.from({ length: n }, (_, i) => generate(i, offset + i, newTokens)))),
            );
          }
          const goal = GOALS[n];
          report.figure({
            name: `${n} concurrent request${n > 1 ? 's' : ''}, output tokens/s`,
            value: lab,
            unit: 'tok/s',
            baseline: { name: 'llama.cpp', value: ref },
            ratio: lab / ref,
            goal: `>= ${goal}x llama.cpp`,
            met: lab / ref >= goal,
          });
        }
      } finally {
        await context.dispose();
        await llamaModel.dispose();
        await server.close();
      }
    } finally {
      await workers.stopAll();
      rmSync(root, { recursive: true, force: true });
    }
  },
};

export default bench;
