import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { loadCheckpoint } from '../../../native/model/checkpoint';
import { convertCheckpoint } from '../../../electron/lab/models/convert';
import { writeTinyCheckpoint } from '../../helpers/tiny-checkpoint';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir();
afterAll(() => tmp.remove());

test('model convert: an f16 copy is about half the size and loads back within f16 precision', () => {
  const src = writeTinyCheckpoint(join(tmp.path, 'src'));
  const r = convertCheckpoint(src, join(tmp.path, 'f16'), 'F16');
  expect(r.dtype).toBe('F16');
  const before = statSync(join(src, 'model.safetensors')).size;
  const after = statSync(join(r.path, 'model.safetensors')).size;
  expect(after).toBeLessThan(before * 0.55);
  const a = loadCheckpoint(src);
  const b = loadCheckpoint(r.path);
  expect([...b.parameters.keys()].sort()).toEqual([...a.parameters.keys()].sort());
  let worst = 0;
  for (const [name, values] of a.parameters) {
    const copy = b.parameters.get(name)!;
    for (let i = 0; i < values.length; i++)
      worst = Math.max(worst, Math.abs(copy[i]! - values[i]!) / Math.max(1e-3, Math.abs(values[i]!)));
  }
  expect(worst).toBeGreaterThan(0); // really stored as f16, not copied
  expect(worst).toBeLessThan(1e-3);
  expect(b.manifest.metadata).toMatchObject({ dtype: 'F16' });
  expect(b.tokenizer.vocabSize).toBe(a.tokenizer.vocabSize);
  // The tokenizer's config (eos and pad names) comes along, byte for byte in meaning.
  const config = (dir: string) => JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as unknown;
  expect(existsSync(join(src, 'tokenizer_config.json'))).toBe(true);
  expect(config(r.path)).toEqual(config(src));
});
