/**
 * `t1lab tasks sft-data --suite PACK --checkpoint DIR --out FILE.jsonl [--from-run RUNDIR] [--json]`:
 * SFT samples from oracle episodes run through the real harness (or from an eval run's resolved episodes),
 * tokenized with the checkpoint's tokenizer through the TITO ledger. `--json` prints
 * `{samples, tokens, lossTokens, out}` (plus episodes, resolved, window, tooLong, longest, ledger).
 */
import type { Command } from 'commander';
import { makeSftData } from '../../lab/training/sft-data';
import { UsageError, WorkFailed } from '../errors';
import { printJson, progressBar, type Io } from '../output';
import { onInterrupt } from './policy-options';

export function registerSftData(tasks: Command, io: Io): void {
  tasks
    .command('sft-data')
    .description(
      'SFT samples (JSONL) from oracle episodes through the harness, or from the resolved episodes of an eval run',
    )
    .option('--suite <path>', 'the tasks (a folder, a folder of tasks or a pack) whose oracle solutions are run')
    .requiredOption('--checkpoint <dir>', 'the checkpoint to tokenize for (its tokenizer, chat template and window)')
    .requiredOption('--out <file>', 'the samples file to write (.jsonl)')
    .option('--from-run <dir>', 'use the resolved episodes of this eval run instead of running the oracle')
    .option('--concurrency <n>', 'oracle episodes at once (default: min(4, cores))')
    .option('--max-turns <n>', 'turn limit of each episode (default 30)')
    .option(
      '--first-turns',
      "one sample per task without running it: the prompt an evaluation starts from and the solution's first command (cheap; many tasks)",
    )
    .option(
      '--agent-timeout <sec>',
      "the agent's time budget the prompt states (default: the task's); use the evaluation's",
    )
    .option(
      '--keep-preamble',
      "type the solution's leading set -e / cd /app lines as turns of their own (default: left out)",
    )
    .option('--keep <dir>', 'keep the oracle episodes (trajectories, recordings) in this folder')
    .option('--json', 'print the result as JSON')
    .action(
      async (o: {
        suite?: string;
        checkpoint: string;
        out: string;
        fromRun?: string;
        concurrency?: string;
        maxTurns?: string;
        firstTurns?: boolean;
        agentTimeout?: string;
        keepPreamble?: boolean;
        keep?: string;
        json?: boolean;
      }) => {
        if (!o.suite && !o.fromRun) throw new UsageError('--suite PATH or --from-run RUNDIR is required');
        const int = (name: string, v: string | undefined) => {
          if (v === undefined) return undefined;
          const n = Number(v);
          if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name}: '${v}' is not a positive integer`);
          return n;
        };
        const controller = new AbortController();
        const unhook = onInterrupt(() => controller.abort());
        let bar: ReturnType<typeof progressBar> | null = null;
        try {
          const result = await makeSftData({
            suite: o.suite,
            checkpoint: o.checkpoint,
            out: o.out,
            fromRun: o.fromRun,
            concurrency: int('--concurrency', o.concurrency),
            maxTurns: int('--max-turns', o.maxTurns),
            firstTurns: o.firstTurns === true,
            agentTimeoutSec: int('--agent-timeout', o.agentTimeout),
            keepPreamble: o.keepPreamble === true,
            keep: o.keep,
            signal: controller.signal,
            log: (m) => io.err(`t1lab: ${m}\n`),
            onProgress(done, total, detail) {
              bar ??= progressBar(io, 'sft-data', total);
              bar.update(done, detail);
            },
          });
          (bar as ReturnType<typeof progressBar> | null)?.stop();
          if (o.json) printJson(io, result);
          else
            io.out(
              `${result.samples} samples (${result.tokens} tokens, ${result.lossTokens} assistant tokens) from ${result.resolved}/${result.episodes} resolved episodes -> ${result.out}\n`,
            );
          if (result.samples === 0) throw new WorkFailed('no sample was made');
        } finally {
          unhook();
        }
      },
    );
}
