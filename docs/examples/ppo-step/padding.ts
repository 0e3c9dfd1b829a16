/**
 * Where the PPO update's padding comes from, on recorded steps of a real run: the micro-batches the update
 * plans (its epochs and minibatches, drawn by the update's own `epochMinibatches`, whole sequences), their
 * positions against the sequences' own: the length spread inside a micro-batch, the rows padded to a power
 * of two, the length buckets (now, and multiples of 128 throughout). Usage:
 *
 *   npx tsx docs/examples/ppo-step/padding.ts RUN_DIR STEP[,STEP...]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCheckpoint } from '../../../native/model/checkpoint/load';
import { TrainingGraphCache } from '../../../native/model/graph-cache';
import { buildExperience } from '../../../electron/lab/ppo/experience';
import { readRolloutEpisodes } from '../../../electron/lab/ppo/rollout-files';
import { epochMinibatches } from '../../../electron/lab/ppo/update';
import { planMicroBatches, trainingBucket, microBatchRows } from '../../../electron/lab/training/batching';
import { ResumableRng } from '../../../electron/rl/rng';
import type { TrainingRunConfig } from '../../../electron/lab/training/config/run-config';

const [runDir, stepsArg] = process.argv.slice(2);
const config = (JSON.parse(readFileSync(join(runDir!, 'run.json'), 'utf8')) as { config: TrainingRunConfig }).config;
const first = loadCheckpoint(join(runDir!, 'policy', 'v-0000000'));
const cache = new TrainingGraphCache(first.config, { provider: 'cpu', interOpThreads: 1, capacity: 4 });
for (const step of stepsArg!.split(',').map(Number)) {
  const exp = await buildExperience({
    runDir: runDir!,
    model: first.config,
    cache,
    params: first.parameters as Map<string, Float32Array>,
    reference: null,
    ppo: { ...config.ppo, kl_coef: 0 },
    rows: 4,
    version: 0,
    episodes: readRolloutEpisodes(runDir!, step).filter((e) => !e.aborted),
  });
  const seqs = exp.sequences;
  const lens = seqs.map((s) => s.ids.length - 1);
  console.log(
    `step ${step}: ${seqs.length} sequences, lengths ${Math.min(...lens)}..${Math.max(...lens)}, sum ${lens.reduce((a, b) => a + b, 0)}`,
  );
  for (const rows of [4, 8]) {
    const rng = new ResumableRng(7);
    const t = { ideal: 0, rows: 0, exact: 0, bucket: 0, b128: 0 };
    for (let epoch = 0; epoch < config.ppo.epochs; epoch++) {
      for (const members of epochMinibatches(seqs, config.ppo.minibatches, rng)) {
        for (const g of planMicroBatches(members, rows)) {
          const L = g.map((s) => s.ids.length - 1);
          const longest = Math.max(...L);
          const B = microBatchRows(g.length, rows);
          t.ideal += L.reduce((a, b) => a + b, 0);
          t.rows += g.length * longest;
          t.exact += B * longest;
          t.bucket += B * trainingBucket(longest);
          t.b128 += B * Math.ceil(longest / 128) * 128;
        }
      }
    }
    console.log(
      `  rows ${rows}: ideal ${t.ideal}; spread x${(t.rows / t.ideal).toFixed(3)}; +row padding x${(t.exact / t.ideal).toFixed(3)}; +buckets (now) x${(t.bucket / t.ideal).toFixed(3)}; +buckets of 128 x${(t.b128 / t.ideal).toFixed(3)}`,
    );
  }
}
await cache.clear();
