/**
 * `t1lab train watch DIR [--interval S] [--once] [--json]`: a live text view of a training run (the main
 * figures of the Training page) until it ends. DIR is a run folder or a run id under the lab's training/.
 * On a terminal the screen is redrawn in place; otherwise a block is printed per new step. `--json` prints
 * one JSON object per update (NDJSON). Exit: 0 when the run completed (or with --once), 1 when it failed
 * or stopped, 2 for a DIR that is not a training run.
 */
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { labDataDir } from '../../lab/paths';
import { SeriesStore } from '../../lab/training/series-store';
import { describeTrainingRun, isTrainingRun, VIEW_FILES, viewRunsDir } from '../../lab/training/view-runs';
import { watchFigures, watchScreen } from '../train-watch-screen';
import { ExitStatus, UsageError } from '../errors';
import type { Io } from '../output';

const ENDED = new Set(['completed', 'failed', 'stopped', 'incomplete']);
const CLEAR = '\x1b[H\x1b[2J';

export function resolveRunDir(arg: string, dataDir = labDataDir()): string {
  for (const dir of [resolve(arg), join(viewRunsDir(dataDir), arg)])
    if (existsSync(dir) && isTrainingRun(dir)) return dir;
  throw new UsageError(
    `${arg}: not a training run folder (a folder with a run.json that names its "stage"), nor a run id under ${viewRunsDir(dataDir)}`,
  );
}

export function registerTrainWatch(train: Command, io: Io, isTty: () => boolean = () => !!process.stdout.isTTY): void {
  train
    .command('watch')
    .description('a live text view of a training run: state, progress, ETA and the main figures, until it ends')
    .argument('<dir>', 'the run folder, or its id under the lab data folder')
    .option('--interval <seconds>', 'how often to look for new steps', '1')
    .option('--once', 'print the view once and exit')
    .option('--json', 'one JSON object per update (NDJSON) instead of the text view')
    .action(async (arg: string, opts: { interval: string; once?: boolean; json?: boolean }) => {
      const interval = Number(opts.interval);
      if (!Number.isFinite(interval) || interval <= 0)
        throw new UsageError(`--interval ${opts.interval}: a positive number of seconds`);
      const dir = resolveRunDir(arg);
      const store = new SeriesStore(join(dir, VIEW_FILES.metrics));
      const id = basename(dir);
      const tty = isTty() && !opts.json;
      let lastRows = -1;
      for (;;) {
        store.refresh();
        const run = describeTrainingRun(id, dir, store.last());
        if (store.rows !== lastRows || ENDED.has(run.state) || opts.once) {
          lastRows = store.rows;
          if (opts.json)
            io.out(`${JSON.stringify({ run, figures: watchFigures(store).map(({ spark: _s, ...f }) => f) })}\n`);
          else io.out(`${tty ? CLEAR : ''}${watchScreen(run, store).join('\n')}\n${tty ? '' : '\n'}`);
        }
        if (opts.once) return;
        if (ENDED.has(run.state)) {
          if (run.state !== 'completed') throw new ExitStatus(1);
          return;
        }
        await new Promise((r) => setTimeout(r, interval * 1000));
      }
    });
}

/** The `train` command group: the trainer's when registered first, else created here. */
export function trainCommand(program: Command): Command {
  return (
    program.commands.find((c) => c.name() === 'train') ??
    program.command('train').description('train the policy: LM pretraining, SFT, PPO; follow runs')
  );
}
