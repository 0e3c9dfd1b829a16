/**
 * Fine-tuning starts from a published checkpoint as from one of the lab's: the LM stage on a Qwen2-MoE
 * folder (q/k/v biases, shared expert with its sigmoid gate, unnormalized top-k) and an OLMoE folder
 * (QK-norm over the whole projection) lowers the loss, every imported tensor receives updates, and the
 * saved checkpoint exports back to the family it came from.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../../native/model/checkpoint';
import { paramName } from '../../../native/model/config';
import { exportHf } from '../../../native/model/hf/export-hf';
import { parseRunConfig } from '../../../electron/lab/training/config/run-config';
import { readMetrics } from '../../../electron/lab/training/run-folder';
import { startTraining } from '../../../electron/lab/training/session';
import { writeHfTestCheckpoint, type HfTestFamily } from '../../helpers/hf-checkpoint';
import { TINY_TEXT } from '../../helpers/tiny-checkpoint';

const root = mkdtempSync(join(tmpdir(), 't1-train-hf-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const corpus = join(root, 'corpus.txt');
writeFileSync(corpus, Array.from({ length: 6 }, (_, k) => TINY_TEXT.replaceAll('/app', `/app${k}`)).join('\n'));

describe('training from a published checkpoint', () => {
  for (const [family, architecture] of [
    ['qwen2_moe', 'Qwen2MoeForCausalLM'],
    ['olmoe', 'OlmoeForCausalLM'],
  ] as [HfTestFamily, string][]) {
    it(`${family}: LM fine-tuning lowers the loss, updates the imported tensors, exports back as ${architecture}`, async () => {
      const dir = join(root, family);
      writeHfTestCheckpoint(dir, family, { shards: 2 });
      const out = join(root, `${family}-run`);
      const config = parseRunConfig({
        stage: 'lm',
        model: { checkpoint: dir },
        data: { path: corpus, eval_fraction: 0.3 },
        lm: { seq_len: 32 },
        train: {
          steps: 12,
          batch_size: 4,
          micro_batch_size: 2,
          eval_every: 12,
          eval_batches: 1,
          threads: 1,
          provider: 'cpu',
        },
        optimizer: { lr: 0.003, weight_decay: 0.0 },
        schedule: { kind: 'constant', warmup_steps: 0 },
        checkpoint: { every: 12, keep_last: 1 },
      });
      const result = await (await startTraining({ config, configSource: null, out }, { dataDir: root })).done;
      expect(result.state).toBe('completed');
      const rows = readMetrics(out);
      expect((rows[10]!.loss + rows[11]!.loss) / 2).toBeLessThan((rows[0]!.loss + rows[1]!.loss) / 2);

      const before = loadCheckpoint(dir);
      const after = loadCheckpoint(result.checkpoint!);
      expect(after.config).toEqual(before.config);
      const changed = (name: string) =>
        before.parameters.get(name)!.some((v, i) => v !== after.parameters.get(name)![i]);
      const touched =
        family === 'qwen2_moe'
          ? [paramName.bq(0), paramName.sharedExpertGate(1), paramName.sharedDown(0)]
          : [paramName.qNorm(0), paramName.kNorm(1)];
      for (const name of [...touched, paramName.router(0), paramName.wq(1)]) expect(changed(name), name).toBe(true);

      const back = exportHf(after.config, after.parameters, join(root, `${family}-back`), {
        sourceDir: result.checkpoint!,
      });
      expect(back.family).toBe(family);
    });
  }
});
