/**
 * `t1lab train init-config|lm|sft|status`: training runs from a shell. A run prints a progress bar on
 * stderr and, with `--json`, exactly `{stage, steps, tokens, finalLoss, evalLoss, checkpoint, runDir,
 * durationMs}` on stdout. Ctrl-C stops at the next step boundary after writing a checkpoint; `--resume DIR`
 * continues a stopped or killed run with the same curve.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import type { TrainingProgress } from '../../domain/training';
import { labDataDir } from '../../lab/paths';
import { onnxPolicyFactory } from '../../lab/models/onnx-policy';
import { policyWorker } from '../../lab/models/policy-engine';
import { defaultConfigToml } from '../../lab/training/config/default-config';
import { loadRunConfig, RunConfigError, type Stage } from '../../lab/training/config/run-config';
import { resumeTraining, startTraining } from '../../lab/training/session';
import type { TrainingSession } from '../../lab/training/session-types';
import { trainingStatus } from '../../lab/training/status';
import { suiteEvaluator } from '../../lab/training/suite-eval';
import { WorkerRegistry } from '../../lab/worker-registry';
import { forkLauncher } from '../../processes/launcher';
import { UsageError, WorkFailed } from '../errors';
import { printJson, progressBar, type Io } from '../output';
import { onInterrupt } from './policy-options';
import { registerTrainPpo } from './train-ppo';
import { overridesOf, type StageOptions } from './train-options';

const fmt = (x: number | null, digits = 4) => (x === null ? '-' : x.toFixed(digits));

/** `t1lab train STAGE`: exported so that every stage (PPO too) registers the same way. */
export function registerTrainStage(train: Command, io: Io, stage: Stage, description: string): void {
  train
    .command(stage)
    .description(description)
    .option('--config <file>', 'run config (TOML; `t1lab train init-config --stage ' + stage + '` writes one)')
    .option('--out <dir>', 'run folder (default: a new folder under the lab data dir training/)')
    .option('--resume <dir>', 'continue a stopped or killed run from its last checkpoint')
    .option('--model <dir>', 'override model.checkpoint')
    .option('--data <path>', 'override data.path')
    .option('--steps <n>', 'override train.steps')
    .option('--seed <s>', 'override seed')
    .option('--checkpoint-every <n>', 'override checkpoint.every')
    .option('--json', 'print the result as JSON on stdout')
    .action(async (o: StageOptions) => {
      const log = (m: string) => io.err(`t1lab: ${m}\n`);
      const overrides = overridesOf(o);
      let bar: ReturnType<typeof progressBar> | null = null;
      const hooks = {
        log,
        progress(p: TrainingProgress) {
          bar ??= progressBar(io, `train ${stage}`, p.totalSteps);
          bar.setTotal(p.totalSteps);
          bar.update(
            p.step,
            `loss ${fmt(p.loss)} eval ${fmt(p.evalLoss)} | ${p.tokensPerS ? `${(p.tokensPerS / 1000).toFixed(1)}k tok/s` : '-'}`,
          );
        },
      };
      const workers = new WorkerRegistry(forkLauncher);
      const dataDir = labDataDir();
      const env = {
        dataDir,
        hooks,
        workers,
        evaluateSuite: suiteEvaluator({ dataDir, onnx: onnxPolicyFactory(policyWorker(workers)), log }),
      };
      let session: TrainingSession;
      try {
        if (o.resume) {
          if (o.config || o.model || o.data || o.seed)
            log('--resume continues the run as it was configured (run.json); only --steps may change');
          session = await resumeTraining(o.resume, env, overrides.steps ? { steps: overrides.steps } : {});
        } else {
          if (!o.config)
            throw new UsageError(
              '--config FILE is required (or --resume DIR); `t1lab train init-config --stage ' + stage + '` writes one',
            );
          let config;
          try {
            config = loadRunConfig(o.config, overrides);
          } catch (error) {
            if (error instanceof RunConfigError) throw new UsageError(error.message);
            throw error;
          }
          if (config.stage !== stage)
            throw new UsageError(
              `${o.config}: stage is "${config.stage}", not "${stage}": use \`t1lab train ${config.stage}\``,
            );
          session = await startTraining({ config, configSource: resolve(o.config), out: o.out }, env);
        }
        log(`run folder: ${session.runDir}`);
        const unhook = onInterrupt(() => {
          log('stopping after this step (a checkpoint is written); continue with --resume');
          session.control.stop();
        });
        try {
          const result = await session.done;
          (bar as ReturnType<typeof progressBar> | null)?.stop();
          const { state, ...report } = result;
          if (o.json) printJson(io, report);
          else
            io.out(
              `${stage}: ${result.steps} steps, ${result.tokens} tokens, loss ${fmt(result.finalLoss)}, eval loss ${fmt(result.evalLoss)}\ncheckpoint: ${result.checkpoint ?? '-'}\nrun folder: ${result.runDir}\n`,
            );
          if (state === 'stopped')
            throw new WorkFailed(
              `stopped at step ${result.steps}: continue with  t1lab train ${stage} --resume ${result.runDir}`,
            );
        } finally {
          unhook();
        }
      } finally {
        (bar as ReturnType<typeof progressBar> | null)?.stop();
        await workers.stopAll();
      }
    });
}

export function registerTrain(program: Command, io: Io): void {
  const train = program
    .command('train')
    .description(
      'train the local MoE policy: LM pretraining, SFT warm start, PPO; watch a run; guard the dense reward',
    );
  train
    .command('init-config')
    .description('print a complete, commented default run config')
    .requiredOption('--stage <stage>', 'lm | sft | ppo')
    .option('--preset <name>', 'nano | micro', 'nano')
    .action((o: { stage: string; preset: string }) => {
      if (!['lm', 'sft', 'ppo'].includes(o.stage))
        throw new UsageError(`--stage: '${o.stage}' is not one of lm, sft, ppo`);
      if (!['nano', 'micro'].includes(o.preset))
        throw new UsageError(`--preset: '${o.preset}' is not one of nano, micro`);
      io.out(defaultConfigToml({ stage: o.stage as Stage, preset: o.preset as 'nano' | 'micro' }));
    });
  registerTrainStage(train, io, 'lm', 'next-token pretraining on plain text (a base model)');
  registerTrainStage(train, io, 'sft', 'supervised fine-tuning on SFT samples (loss on assistant tokens only)');
  registerTrainPpo(train, io);
  train
    .command('status')
    .description("a training run's state: steps, losses, checkpoints")
    .argument('<dir>', 'the run folder')
    .option('--json', 'print as JSON')
    .action((dir: string, o: { json?: boolean }) => {
      const s = trainingStatus(resolve(dir));
      if (o.json) printJson(io, s);
      else
        io.out(
          `${s.runId} (${s.stage}): ${s.state}, step ${s.step}/${s.totalSteps}, ${s.tokens} tokens, loss ${fmt(s.loss)}, eval loss ${fmt(s.evalLoss)}\n` +
            `last checkpoint: ${s.lastCheckpoint?.dir ?? '-'}\nbest checkpoint: ${s.bestCheckpoint?.dir ?? '-'}\n`,
        );
    });
}
