/**
 * `t1lab tasks sft-drills --like SFT.jsonl --checkpoint DIR --count N --out FILE.jsonl [--seed N] [--json]`:
 * copy drills as SFT samples in the layout of a real samples file made for the same checkpoint
 * (electron/lab/training/drill-sft.ts). `--json` prints `{samples, tokens, lossTokens, out}`.
 */
import type { Command } from 'commander';
import { DRILL_SFT_SEED, makeDrillSftSamples } from '../../lab/training/drill-sft';
import { UsageError } from '../errors';
import { printJson, type Io } from '../output';

function positiveInt(flag: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag}: '${v}' is not a positive integer`);
  return n;
}

export function registerSftDrills(tasks: Command, io: Io): void {
  tasks
    .command('sft-drills')
    .description(
      'copy drills (instructions naming random paths, names, lines and modes that the tool calls repeat) as SFT samples beside the oracle episodes',
    )
    .requiredOption(
      '--like <file>',
      'an SFT samples file made for --checkpoint (tasks sft-data): the drills take its system prompt and layout',
    )
    .requiredOption('--checkpoint <dir>', 'the checkpoint to tokenize for')
    .requiredOption('--count <n>', 'drills to write (docs/examples/copy-drills used 800 beside 1,605 episode samples)')
    .requiredOption('--out <file>', 'the samples file to write (.jsonl)')
    .option('--seed <n>', `drill d is drawn from the stream seeded seed x 1,000,003 + d (default ${DRILL_SFT_SEED})`)
    .option('--json', 'print the result as JSON')
    .action((o: { like: string; checkpoint: string; count: string; out: string; seed?: string; json?: boolean }) => {
      const seed = o.seed === undefined ? undefined : Number(o.seed);
      if (seed !== undefined && (!Number.isInteger(seed) || seed < 0))
        throw new UsageError(`--seed: '${o.seed}' is not a non-negative integer`);
      const result = makeDrillSftSamples({
        like: o.like,
        checkpoint: o.checkpoint,
        out: o.out,
        count: positiveInt('--count', o.count),
        ...(seed === undefined ? {} : { seed }),
      });
      if (o.json) printJson(io, result);
      else
        io.out(
          `${result.samples} drill samples (${result.tokens} tokens, ${result.lossTokens} trained) -> ${result.out}\n`,
        );
    });
}
