/**
 * `t1lab policy serve CHECKPOINT`: a checkpoint behind an OpenAI-compatible server (electron/lab/policy-serve)
 * for harnesses outside the lab (Harbor, Terminus, a cluster's rollout workers) and for
 * `t1lab eval --policy openai:URL#MODEL`. Prints one line on stdout, the base URL (with --json, a JSON line
 * that also names the model and the policy spec); SIGINT or SIGTERM closes it and its policy worker.
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { policyContract } from '../../processes/contracts/policy';
import { forkLauncher } from '../../processes/launcher';
import { WorkerRegistry } from '../../lab/worker-registry';
import { ServedModel } from '../../lab/policy-serve/served-model';
import { POLICY_SERVE_DEFAULTS, startPolicyServer, type PolicyServer } from '../../lab/policy-serve/server';
import { isLoopback, LOOPBACK } from '../../web/server';
import { keepServingOnUncaught } from '../../web/keep-serving';
import { UsageError } from '../errors';
import type { Io } from '../output';

export const POLICY_API_KEY_ENV = 'T1LAB_POLICY_API_KEY';

export interface PolicyServeOptions {
  host?: string;
  port?: string;
  maxConcurrency?: string;
  name?: string;
  provider?: string;
  threads?: string;
  json?: boolean;
}

function wholeNumber(flag: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${flag}: '${value}' is not a whole number from ${min} to ${max}`);
  return n;
}

export async function policyServe(
  checkpointArg: string,
  opts: PolicyServeOptions,
  io: Io,
): Promise<{ server: PolicyServer; model: ServedModel; workers: WorkerRegistry }> {
  const host = opts.host ?? LOOPBACK;
  const port = wholeNumber('--port', opts.port, 0, 0, 65535);
  // The decoder's rows: the policy worker takes at most 256.
  const maxConcurrency = wholeNumber(
    '--max-concurrency',
    opts.maxConcurrency,
    POLICY_SERVE_DEFAULTS.maxConcurrency,
    1,
    256,
  );
  const provider = opts.provider ?? 'auto';
  if (provider !== 'auto' && provider !== 'cpu' && provider !== 'cuda')
    throw new UsageError(`--provider: '${provider}' is not auto, cpu or cuda`);
  const threads = opts.threads === undefined ? undefined : wholeNumber('--threads', opts.threads, 0, 0, 256);
  const checkpoint = resolve(checkpointArg);
  if (!existsSync(checkpoint)) throw new UsageError(`${checkpointArg}: no such checkpoint folder`);
  const apiKey = process.env[POLICY_API_KEY_ENV] || null;
  if (!isLoopback(host))
    io.err(
      `warning: serving on ${host}, not loopback${apiKey ? '' : ` and without an API key ($${POLICY_API_KEY_ENV})`}: anyone who reaches it can use this machine's compute. Prefer an SSH tunnel.\n`,
    );
  const workers = new WorkerRegistry(forkLauncher);
  try {
    const worker = workers.get('policy', policyContract);
    const model = await ServedModel.load({
      checkpoint,
      worker,
      name: opts.name,
      settings: { provider, maxBatch: maxConcurrency, ...(threads !== undefined ? { intraOpThreads: threads } : {}) },
    });
    const log = (line: string) => io.err(`t1lab policy: ${line}\n`);
    const server = await startPolicyServer({ model, host, port, maxConcurrency, apiKey, log });
    return { server, model, workers };
  } catch (error) {
    await workers.stopAll();
    throw error;
  }
}

export function registerPolicy(program: Command, io: Io): void {
  const policy = program.command('policy').description("serve the lab's checkpoints to harnesses outside it");
  policy
    .command('serve <checkpoint>')
    .description(
      'serve a checkpoint over the OpenAI chat-completions API (/v1/chat/completions with tools, streaming and logprobs; /v1/models), batching concurrent requests into one decode',
    )
    .option('--host <host>', 'address to bind (default 127.0.0.1)')
    .option('--port <port>', 'port to bind (default: a free one)')
    .option(
      '--max-concurrency <n>',
      `requests decoded together in one batch; more wait for a free row, and past ${POLICY_SERVE_DEFAULTS.queuePerRow}x this many get 429 (default ${POLICY_SERVE_DEFAULTS.maxConcurrency})`,
    )
    .option('--name <id>', "the model id clients name (default: the checkpoint folder's name)")
    .option('--provider <name>', 'auto, cpu or cuda (default auto)')
    .option('--threads <n>', "onnxruntime intra-op threads (default: onnxruntime's own choice)")
    .option(
      '--json',
      'print one JSON line {url, model, policy, checkpoint, contextWindow, maxConcurrency, provider} instead of the URL',
    )
    .action(async (checkpoint: string, opts: PolicyServeOptions) => {
      const { server, model, workers } = await policyServe(checkpoint, opts, io);
      keepServingOnUncaught((line) => io.err(`t1lab policy: ${line}\n`));
      const maxConcurrency = wholeNumber(
        '--max-concurrency',
        opts.maxConcurrency,
        POLICY_SERVE_DEFAULTS.maxConcurrency,
        1,
        256,
      );
      if (opts.json) {
        const line = {
          url: server.url,
          model: model.id,
          policy: `openai:${server.url}#${model.id}`,
          checkpoint: model.checkpoint,
          contextWindow: model.info.maxPositions,
          maxConcurrency,
          provider: model.info.provider,
        };
        io.out(`${JSON.stringify(line)}\n`);
      } else {
        io.err(
          `t1lab policy: serving ${model.checkpoint} as '${model.id}' on ${model.info.provider}; try: t1lab eval --policy openai:${server.url}#${model.id} --protocol hermes ...\n`,
        );
        io.out(`${server.url}\n`);
      }
      await new Promise<void>((done) => {
        process.once('SIGINT', () => done());
        process.once('SIGTERM', () => done());
      });
      await server.close();
      await workers.stopAll();
    });
}
