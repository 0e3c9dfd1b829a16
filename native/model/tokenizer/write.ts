/** Write a trained tokenizer as the two files Hugging Face tools read from a model folder. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TrainBpeResult } from './bpe-trainer';

export function writeTokenizerFiles(
  dir: string,
  trained: Pick<TrainBpeResult, 'json' | 'config'>,
): { tokenizer: string; config: string } {
  const tokenizer = join(dir, 'tokenizer.json');
  const config = join(dir, 'tokenizer_config.json');
  writeFileSync(tokenizer, trained.json);
  writeFileSync(config, JSON.stringify(trained.config, null, 2) + '\n');
  return { tokenizer, config };
}
