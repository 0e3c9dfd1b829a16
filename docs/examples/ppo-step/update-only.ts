/**
 * The PPO update alone, timed on recorded steps of a real run: each step's experience is built from the
 * run's rollouts with its first weights (policy v-0000000), then the same update (seed 7) runs under each
 * packing, twice (the first pass makes the graphs; read the second). Usage, from the repository root:
 *
 *   npx tsx docs/examples/ppo-step/update-only.ts RUN_DIR STEP[,STEP...] ROWS:SHARE...
 *
 * ROWS is the micro-batch size, SHARE 1 to forward a shared prompt once, 0 for whole sequences
 * (T1LAB_UNSHARED_PREFIX=1); e.g. `... /path/repro/rl-dense 1,3 4:0 4:1`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCheckpoint } from '../../../native/model/checkpoint/load';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import { buildExperience } from '../../../electron/lab/ppo/experience';
import { readRolloutEpisodes } from '../../../electron/lab/ppo/rollout-files';
import { ppoUpdate, UNSHARED_PREFIX_ENV } from '../../../electron/lab/ppo/update';
import type { TrainingRunConfig } from '../../../electron/lab/training/config/run-config';
import { paramSettings } from '../../../electron/lab/training/trainer';
import { createOptimizerState } from '../../../electron/rl/adamw';
import { ResumableRng } from '../../../electron/rl/rng';

const [runDir, stepsArg, ...variants] = process.argv.slice(2);
if (!runDir || !stepsArg || !variants.length)
  throw new Error('usage: update-only.ts RUN_DIR STEP[,STEP] ROWS:SHARE...');
const config = (JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as { config: TrainingRunConfig }).config;
const first = loadCheckpoint(join(runDir, 'policy', 'v-0000000'));
const model = first.config;
const weights = first.parameters as Map<string, Float32Array>;
const cache = new TrainingGraphCache(model, { provider: 'cpu', interOpThreads: 1, capacity: 24 });
for (const step of stepsArg.split(',').map(Number)) {
  const exp = await buildExperience({
    runDir,
    model,
    cache,
    params: weights,
    reference: null,
    ppo: { ...config.ppo, kl_coef: 0 },
    rows: config.train.micro_batch_size,
    version: 0,
    episodes: readRolloutEpisodes(runDir, step).filter((e) => !e.aborted),
  });
  for (const variant of variants) {
    const [rows, share] = variant.split(':').map(Number);
    process.env[UNSHARED_PREFIX_ENV] = share ? '0' : '1';
    for (let pass = 1; pass <= 2; pass++) {
      const params = new Map([...weights].map(([k, w]) => [k, Float32Array.from(w)]));
      const started = performance.now();
      const u = await ppoUpdate({
        model,
        cache,
        params,
        optimizer: createOptimizerState(params),
        settings: paramSettings(config, model).settings,
        hyper: { beta1: config.optimizer.beta1, beta2: config.optimizer.beta2, eps: config.optimizer.eps },
        lr: config.optimizer.lr,
        gradClip: config.optimizer.grad_clip,
        auxCoef: config.train.aux_coef,
        ppo: config.ppo,
        criticOnly: false,
        rows: rows!,
        maxLength: model.max_position_embeddings,
        rng: new ResumableRng(7),
        sequences: exp.sequences,
        temperature: exp.temperature,
      });
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `step ${step} rows ${rows} shared ${share} pass ${pass}: ${seconds.toFixed(2)} s; positions trained ${u.trainedTokens}, forwarded ${u.forwardedTokens}, computed ${u.computedTokens}; loss ${u.metrics.loss?.toFixed(6)}`,
      );
    }
  }
}
await cache.clear();
