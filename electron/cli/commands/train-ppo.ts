/**
 * `t1lab train ppo --config FILE [--out DIR] [--resume DIR] [--json]`: PPO on executable tasks from an SFT
 * checkpoint (electron/lab/ppo). A progress bar with ETA on stderr; with `--json`, stdout holds exactly
 * `{stage, steps, episodes, tokens, checkpoint, runDir, final: {reward, resolved, trainInferGap},
 * durationMs}` (plus flaggedAssertions). Ctrl-C stops after the current step with a checkpoint; a kill -9
 * loses nothing either: `--resume DIR` continues.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { TrainingProgress } from '../../domain/training';
import { labDataDir } from '../../lab/paths';
import { runPpo } from '../../lab/ppo/run';
import { loadRunConfig, RunConfigError } from '../../lab/training/config/run-config';
import { WorkerRegistry } from '../../lab/worker-registry';
import { forkLauncher } from '../../processes/launcher';
import { UsageError, WorkFailed } from '../errors';
import { printJson, progressBar, type Io } from '../output';
import { onInterrupt } from './policy-options';
import { overridesOf, type StageOptions } from './train-options';

export function registerTrainPpo(train: Command, io: Io): void {
  train
    .command('ppo')
    .description(
      'PPO on executable tasks: rollouts in real sandboxes, verifier reward, R3, exact TITO, TIS, async steps',
    )
    .option('--config <file>', 'run config (TOML; `t1lab train init-config --stage ppo` writes one)')
    .option('--out <dir>', 'run folder (default: a new folder under the lab data dir training/)')
    .option('--resume <dir>', 'continue a stopped or killed run from its last checkpoint')
    .option('--model <dir>', 'override model.checkpoint')
    .option('--data <path>', 'override data.path (the train task suite)')
    .option('--steps <n>', 'override train.steps')
    .option('--seed <s>', 'override seed')
    .option('--checkpoint-every <n>', 'override checkpoint.every')
    .option('--json', 'print the result as JSON on stdout')
    .action(async (o: StageOptions) => {
      const log = (m: string) => io.err(`t1lab: ${m}\n`);
      let config;
      if (!o.resume) {
        if (!o.config)
          throw new UsageError(
            '--config FILE is required (or --resume DIR); `t1lab train init-config --stage ppo` writes one',
          );
        const overrides = overridesOf(o);
        try {
          config = loadRunConfig(o.config, overrides);
        } catch (error) {
          if (error instanceof RunConfigError) throw new UsageError(error.message);
          throw error;
        }
        if (config.stage !== 'ppo')
          throw new UsageError(
            `${o.config}: stage is "${config.stage}", not "ppo": use \`t1lab train ${config.stage}\``,
          );
      } else if (o.config || o.model || o.data || o.seed)
        log('--resume continues the run as it was configured (run.json); only --steps may change');
      // A resumed run may be given more (or fewer) steps than it was configured with, as lm and sft runs may.
      const resumeSteps = o.resume ? overridesOf(o).steps : undefined;
      let bar: ReturnType<typeof progressBar> | null = null;
      const workers = new WorkerRegistry(forkLauncher);
      const stop = new AbortController();
      const unhook = onInterrupt(() => {
        log('stopping after this step (a checkpoint is written); continue with --resume');
        stop.abort();
      });
      try {
        const result = await runPpo(
          {
            config: config!,
            configSource: o.config ? resolve(o.config) : null,
            out: o.out,
            resume: o.resume,
            ...(resumeSteps !== undefined ? { steps: resumeSteps } : {}),
          },
          {
            dataDir: labDataDir(),
            workers,
            log,
            signal: stop.signal,
            progress(p: TrainingProgress) {
              bar ??= progressBar(io, 'train ppo', p.totalSteps);
              bar.update(p.step, p.message ?? '');
            },
          },
        );
        (bar as ReturnType<typeof progressBar> | null)?.stop();
        const { state, ...report } = result;
        // Said again at the end, where a reader of the result looks.
        for (const w of report.warnings) log(w);
        if (o.json) printJson(io, report);
        else {
          const f = report.final;
          io.out(
            `ppo: ${report.steps} steps, ${report.episodes} episodes, ${report.tokens} tokens; last step: reward ${f.reward?.toFixed(2) ?? '-'}, resolved ${f.resolved === null ? '-' : `${(f.resolved * 100).toFixed(0)}%`}, train-inference gap ${f.trainInferGap?.toExponential(2) ?? '-'}\n` +
              `${report.flaggedAssertions.length ? `flagged assertions (pass rate up, binary not): ${report.flaggedAssertions.map((a) => `${a.taskId}::${a.assertion}`).join(', ')}\n` : ''}checkpoint: ${report.checkpoint ?? '-'}\nrun folder: ${report.runDir}\n`,
          );
        }
        if (state === 'stopped')
          throw new WorkFailed(
            `stopped at step ${result.steps}: continue with  t1lab train ppo --resume ${result.runDir}`,
          );
      } finally {
        unhook();
        (bar as ReturnType<typeof progressBar> | null)?.stop();
        await workers.stopAll();
      }
    });
}
