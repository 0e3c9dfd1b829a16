/**
 * The learning check of SFT (issue 21): a tiny model learns a command shape that copies an argument from
 * the instruction. Instructions name a file (`show the file qmd`), the completion is the command
 * (` cat qmd`, then end-of-turn); names are three letters, and the names held out for the check never
 * appear in training (only their letters do). The SFT loss (token-mean NLL of the completion), the engine's
 * exact gradients and AdamW train it; on held-out names, greedy decoding must write exactly `cat NAME`.
 * It fails when the loss mask leaves the completion out.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveCheckpoint } from '../../../native/model/checkpoint';
import { initParameters } from '../../../native/model/init';
import { loadTokenizerFile, trainBpe } from '../../../native/model/tokenizer';
import { completionLogprobs, completionSequence, supervisedSteps } from '../../helpers/learning-check';
import { seeded } from '../../helpers/training-run';
import { tinyTrainConfig } from '../../helpers/tiny-checkpoint';
import { makeTempDir } from '../../helpers/tmp';

const LETTERS = 'abcdefghijklmnop';
const STEPS = Number(process.env.SFT_STEPS ?? 300);

describe('SFT learns to copy an argument from the instruction', () => {
  it('writes `cat NAME` for names it never saw, greedily, after a few hundred steps', async () => {
    const tmp = makeTempDir('t1lab-sft-learns-');
    try {
      const rand = seeded(7);
      const names = new Set<string>();
      while (names.size < 400)
        names.add(Array.from({ length: 3 }, () => LETTERS[Math.floor(rand() * LETTERS.length)]).join(''));
      const all = [...names];
      const train = all.slice(0, 340);
      const heldOut = all.slice(340);
      // A byte-level tokenizer whose merges cover the fixed words only: a name is three letter tokens.
      const config = tinyTrainConfig({
        vocab_size: 288,
        hidden_size: 32,
        head_dim: 16,
        moe_intermediate_size: 32,
        max_position_embeddings: 64,
      });
      const bpe = trainBpe({
        corpus: [Array.from({ length: 50 }, () => 'show the file \n cat \n').join('')],
        vocabSize: config.vocab_size,
      });
      const dir = join(tmp.path, 'init');
      saveCheckpoint(dir, {
        config,
        tokenizer: bpe.json,
        tokenizerConfig: bpe.config,
        parameters: initParameters(config, 1),
        labVersion: 'test',
      });
      const tokenizer = loadTokenizerFile(dir);
      const end = tokenizer.stopTokenIds[0]!;
      const example = (name: string) =>
        completionSequence(tokenizer.encode(`show the file ${name}\n`), [...tokenizer.encode(` cat ${name}`), end]);
      expect(tokenizer.encode(' cat qmd').length).toBeGreaterThanOrEqual(4); // the name is letters, not one token

      const params = initParameters(config, 1);
      const batch = 32;
      const t0 = performance.now();
      const loss = await supervisedSteps(
        config,
        params,
        (step) => Array.from({ length: batch }, (_, i) => example(train[(step * batch + i) % train.length]!)),
        { steps: STEPS, lr: 1e-2, decay: true },
      );
      // Greedy writes the command exactly when every completion token has probability > 1/2.
      const greedyExact = async (set: string[]) => {
        const lps = await completionLogprobs(config, params, set.map(example));
        return lps.filter((l) => l.every((x) => x > Math.log(0.5))).length / set.length;
      };
      const seen = await greedyExact(train.slice(0, 60));
      const unseen = await greedyExact(heldOut);
      console.log(
        `SFT ${STEPS} steps x ${batch} in ${((performance.now() - t0) / 1000).toFixed(1)} s: loss ${loss.toFixed(3)}; greedy exact 'cat NAME': training names ${(seen * 100).toFixed(0)}%, held-out names ${(unseen * 100).toFixed(0)}% (${heldOut.length})`,
      );
      expect(unseen).toBeGreaterThanOrEqual(0.9);
    } finally {
      tmp.remove();
    }
  }, 240_000);
});
