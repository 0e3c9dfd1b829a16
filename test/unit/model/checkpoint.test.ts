import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import {
  CheckpointError,
  CheckpointSummary,
  contentId,
  inspectCheckpoint,
  listCheckpoints,
  loadCheckpoint,
  readManifest,
  recoverPartialSaves,
  saveCheckpoint,
  type CheckpointErrorCode,
} from '../../../native/model/checkpoint/index';
import { parameterSpecs } from '../../../native/model/config';
import { loadTokenizer } from '../../../native/model/tokenizer/index';
import { TEST_LAB_VERSION, rehash, testTokenizer, tinyConfig, tinyWeights } from '../../helpers/checkpoint';
import { findPython, pythonSkipNote, runPythonJson } from '../../helpers/python';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-ckpt-');
afterAll(() => tmp.remove());
const config = tinyConfig();
const weights = tinyWeights(config);
const tokenizer = testTokenizer();
let n = 0;
const fresh = (name = 'ck') => join(tmp.path, `${name}-${n++}`);

function save(dir: string, extra: Partial<Parameters<typeof saveCheckpoint>[1]> = {}) {
  return saveCheckpoint(dir, {
    config,
    tokenizer: tokenizer.json,
    tokenizerConfig: tokenizer.config,
    parameters: weights,
    labVersion: TEST_LAB_VERSION,
    ...extra,
  });
}

/** A saved checkpoint copied to a new folder, for a test to break. */
const good = save(fresh('good'));
function copyOfGood(): string {
  const dir = fresh('broken');
  cpSync(good.dir, dir, { recursive: true });
  return dir;
}

function expectCheckpointError(f: () => unknown, code: CheckpointErrorCode, message: RegExp): void {
  let caught: unknown;
  try {
    f();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(CheckpointError);
  expect({ code: (caught as CheckpointError).code, message: (caught as CheckpointError).message }).toMatchObject({
    code,
    message: expect.stringMatching(message),
  });
}

describe('saving and loading', () => {
  test('a saved checkpoint loads back bit for bit, with its tokenizer and a manifest of sha256s', () => {
    const files = readdirSync(good.dir).sort();
    expect(files).toEqual([
      'config.json',
      'manifest.json',
      'model.safetensors',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    const m = good.manifest;
    expect(m).toMatchObject({
      format: 't1-checkpoint',
      format_version: 1,
      kind: 'model',
      lab_version: TEST_LAB_VERSION,
      parent: null,
      weights_dtype: 'F32',
    });
    expect(Date.now() - Date.parse(m.created_at)).toBeLessThan(600_000);
    expect(m.parameters).toBe(parameterSpecs(config).reduce((s, p) => s + p.shape.reduce((a, b) => a * b, 1), 0));
    for (const name of files.filter((f) => f !== 'manifest.json')) {
      const bytes = readFileSync(join(good.dir, name));
      expect(m.files[name]).toEqual({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
    }
    expect(m.id).toBe(contentId(m.files));
    expect(readManifest(good.dir)).toEqual(m);

    const loaded = loadCheckpoint(good.dir);
    expect(loaded.config).toEqual(config);
    expect([...loaded.parameters.keys()]).toEqual(parameterSpecs(config).map((p) => p.name));
    for (const [name, data] of weights)
      expect(Buffer.from(loaded.parameters.get(name)!.buffer).equals(Buffer.from(data.buffer))).toBe(true);
    expect(loaded.tokenizer.encode('<|im_start|>user\nls -la<|im_end|>')).toEqual(
      loadTokenizer(tokenizer.json).encode('<|im_start|>user\nls -la<|im_end|>'),
    );
    expect(loaded.tokenizer.special.imEnd).toBeDefined();
    expect(loaded.optimizer).toBeNull();
    // Nothing is left beside it: the partial folder was renamed into place.
    expect(readdirSync(tmp.path).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  test('a training checkpoint carries optimizer state and its parent', () => {
    const state = new Map<string, Float32Array>();
    for (const p of parameterSpecs(config)) {
      const size = p.shape.reduce((a, b) => a * b, 1);
      state.set(
        `${p.name}.exp_avg`,
        Float32Array.from({ length: size }, (_, i) => i * 1e-3),
      );
      state.set(`${p.name}.exp_avg_sq`, new Float32Array(size).fill(0.5));
    }
    const dir = fresh('train');
    const saved = save(dir, {
      optimizer: { state, metadata: { step: '10', beta1: '0.9' } },
      parent: good.dir,
      metadata: { step: 10, run: 'r1' },
    });
    expect(saved.manifest).toMatchObject({
      kind: 'training',
      parent: { id: good.manifest.id, path: `../${good.dir.split('/').pop()}` },
      metadata: { step: 10, run: 'r1' },
    });
    expect(loadCheckpoint(dir).optimizer).toBeNull();
    const loaded = loadCheckpoint(dir, { optimizer: true });
    expect(loaded.optimizer!.metadata).toEqual({ step: '10', beta1: '0.9' });
    expect(loaded.optimizer!.state.size).toBe(state.size);
    expect([...loaded.optimizer!.state.get('embed.weight.exp_avg')!]).toEqual([...state.get('embed.weight.exp_avg')!]);
    expectCheckpointError(
      () => save(fresh(), { optimizer: { state: new Map([['embed.weight.m', new Float32Array(3)]]) } }),
      'SHAPE_MISMATCH',
      /tensor "embed.weight.m" has shape \[3\] but its parameter "embed.weight" has \[512, 32\]/,
    );
    expectCheckpointError(
      () => save(fresh(), { optimizer: { state: new Map([['step', new Float32Array(1)]]) } }),
      'SHAPE_MISMATCH',
      /"step" is not named <parameter>.<slot>/,
    );
  });

  test('BF16 weights halve the file and load back as float32 within bf16 rounding', () => {
    const dir = fresh('bf16');
    const saved = save(dir, { weightsDtype: 'BF16' });
    expect(saved.manifest.weights_dtype).toBe('BF16');
    expect(saved.manifest.files['model.safetensors']!.bytes).toBeLessThan(
      good.manifest.files['model.safetensors']!.bytes * 0.51,
    );
    const loaded = loadCheckpoint(dir);
    for (const [name, data] of weights) {
      const back = loaded.parameters.get(name)!;
      for (let i = 0; i < data.length; i += 17)
        expect(Math.abs(back[i]! - data[i]!)).toBeLessThanOrEqual(Math.abs(data[i]!) * 2 ** -8);
    }
  });

  test('an existing checkpoint is replaced only with overwrite, and nothing is left beside it', () => {
    const dir = fresh('over');
    save(dir);
    expectCheckpointError(() => save(dir), 'EXISTS', /already exists; pass overwrite/);
    const other = tinyWeights(config, 2);
    const replaced = save(dir, { parameters: other, overwrite: true });
    expect(replaced.manifest.id).not.toBe(good.manifest.id);
    expect([...loadCheckpoint(dir).parameters.get('embed.weight')!.slice(0, 4)]).toEqual([
      ...other.get('embed.weight')!.slice(0, 4),
    ]);
    expect(readdirSync(tmp.path).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  test('saving refuses inconsistent input before writing anything', () => {
    const dir = fresh('refused');
    const missing = new Map(weights);
    missing.delete('layers.1.moe.w_up');
    expectCheckpointError(
      () => save(dir, { parameters: missing }),
      'SHAPE_MISMATCH',
      /parameter "layers.1.moe.w_up" is missing/,
    );
    const short = new Map(weights).set('final_norm.weight', new Float32Array(3));
    expectCheckpointError(
      () => save(dir, { parameters: short }),
      'SHAPE_MISMATCH',
      /"final_norm.weight" has 3 values but config.json calls for \[32\] = 32/,
    );
    const extra = new Map(weights).set('lm_head.weight', new Float32Array(32 * 512));
    expectCheckpointError(
      () => save(dir, { parameters: extra }),
      'SHAPE_MISMATCH',
      /"lm_head.weight" is not part of the model/,
    );
    const small = tinyConfig({ vocab_size: 300 });
    expectCheckpointError(
      () => save(dir, { config: small, parameters: tinyWeights(small) }),
      'BAD_TOKENIZER',
      /the tokenizer has 512 tokens but config.json vocab_size is 300/,
    );
    expectCheckpointError(() => save(dir, { tokenizer: '{"nope": 1}' }), 'BAD_TOKENIZER', /tokenizer.json: .*model/);
    expectCheckpointError(
      () => save(dir, { config: { ...config, num_experts_per_tok: 9 } }),
      'BAD_CONFIG',
      /num_experts_per_tok \(9\) exceeds num_experts \(4\)/,
    );
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(tmp.path).filter((f) => f.startsWith('.'))).toEqual([]);
  });
});

describe('loading refuses broken checkpoints with the file, field or tensor named', () => {
  test('truncated weights: the size differs from the manifest', () => {
    const dir = copyOfGood();
    const size = good.manifest.files['model.safetensors']!.bytes;
    truncateSync(join(dir, 'model.safetensors'), size - 100);
    expectCheckpointError(
      () => loadCheckpoint(dir),
      'HASH_MISMATCH',
      new RegExp(`model.safetensors: ${size - 100} bytes but the manifest records ${size}: truncated`),
    );
  });

  test('truncated weights with a manifest that agrees: the header points outside the file', () => {
    const dir = copyOfGood();
    truncateSync(join(dir, 'model.safetensors'), good.manifest.files['model.safetensors']!.bytes - 100);
    rehash(dir);
    expectCheckpointError(
      () => loadCheckpoint(dir),
      'BAD_SAFETENSORS',
      /model.safetensors: tensor "value_head.weight": data_offsets \[\d+, \d+\] point outside the file/,
    );
  });

  test('shapes that disagree with config.json', () => {
    const dir = copyOfGood();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, num_experts: 8 }));
    rehash(dir);
    expectCheckpointError(
      () => loadCheckpoint(dir),
      'SHAPE_MISMATCH',
      /tensor "layers.0.moe.router" has shape \[32, 4\] but config.json \(.*8 experts.*\) calls for \[32, 8\]/,
    );
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, tie_word_embeddings: false }));
    rehash(dir);
    expectCheckpointError(() => loadCheckpoint(dir), 'SHAPE_MISMATCH', /tensor "lm_head.weight" is missing/);
  });

  test('a missing tokenizer', () => {
    const dir = copyOfGood();
    rmSync(join(dir, 'tokenizer.json'));
    expectCheckpointError(
      () => loadCheckpoint(dir),
      'MISSING_FILE',
      /tokenizer.json: missing \(a checkpoint needs its tokenizer\)/,
    );
    expectCheckpointError(() => inspectCheckpoint(dir), 'MISSING_FILE', /tokenizer.json: missing/);
  });

  test('a corrupt tokenizer, or one larger than vocab_size', () => {
    const dir = copyOfGood();
    writeFileSync(join(dir, 'tokenizer.json'), '{"model": ');
    rehash(dir);
    expectCheckpointError(() => loadCheckpoint(dir), 'BAD_TOKENIZER', /tokenizer.json: not valid JSON/);
    writeFileSync(join(dir, 'tokenizer.json'), tokenizer.json);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, vocab_size: 500 }));
    rehash(dir);
    expectCheckpointError(() => loadCheckpoint(dir), 'BAD_TOKENIZER', /512 tokens but config.json vocab_size is 500/);
  });

  test('a hash mismatch: one flipped byte in the weights, same size', () => {
    const dir = copyOfGood();
    const path = join(dir, 'model.safetensors');
    const bytes = readFileSync(path);
    bytes[bytes.length - 1000]! ^= 0x01;
    writeFileSync(path, bytes);
    expectCheckpointError(
      () => loadCheckpoint(dir),
      'HASH_MISMATCH',
      /model.safetensors: sha256 [0-9a-f]{64} differs from the manifest's/,
    );
    // The check can be skipped on purpose (e.g. a trusted, just-written folder); the structure is still checked.
    expect(loadCheckpoint(dir, { verifyHashes: false }).parameters.size).toBe(weights.size);
  });

  test('a missing, malformed or edited manifest; an invalid config', () => {
    const dir = copyOfGood();
    expectCheckpointError(() => loadCheckpoint(join(dir, 'nope')), 'MISSING_FILE', /no such checkpoint folder/);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, kind: 'weights' }));
    expectCheckpointError(() => loadCheckpoint(dir), 'BAD_MANIFEST', /manifest.json: kind: /);
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({
        ...manifest,
        files: { ...manifest.files, 'config.json': { ...manifest.files['config.json'], sha256: '0'.repeat(64) } },
      }),
    );
    expectCheckpointError(() => loadCheckpoint(dir), 'BAD_MANIFEST', /id does not match the files it lists/);
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...config, head_dim: 15 }));
    rehash(dir);
    expectCheckpointError(
      () => loadCheckpoint(dir),
      'BAD_CONFIG',
      /config.json: head_dim: head_dim \(15\) must be even/,
    );
    rmSync(join(dir, 'manifest.json'));
    expectCheckpointError(
      () => loadCheckpoint(dir),
      'MISSING_FILE',
      /manifest.json: missing; not a T1 checkpoint folder/,
    );
  });

  test('a header claiming a huge tensor that config.json agrees with fails on its offsets, before any allocation', () => {
    const dir = copyOfGood();
    const huge = { ...config, vocab_size: 1_000_000_000 };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(huge));
    // Rewrite model.safetensors' header so embed.weight is [1e9, 32] F32 (128 GB) in a file of a few hundred KB.
    const path = join(dir, 'model.safetensors');
    const bytes = readFileSync(path);
    const n = Number(bytes.readBigUInt64LE(0));
    const header = JSON.parse(bytes.subarray(8, 8 + n).toString());
    header['embed.weight'] = { dtype: 'F32', shape: [1_000_000_000, 32], data_offsets: [0, 128_000_000_000] };
    const json = Buffer.from(JSON.stringify(header));
    const prefix = Buffer.alloc(8);
    prefix.writeBigUInt64LE(BigInt(json.length));
    writeFileSync(path, Buffer.concat([prefix, json, bytes.subarray(8 + n)]));
    rehash(dir);
    expectCheckpointError(
      () => loadCheckpoint(dir),
      'BAD_SAFETENSORS',
      /tensor "embed.weight": data_offsets \[0, 128000000000\] point outside the file/,
    );
  });
});

describe('inspect and registry', () => {
  test('inspect reads everything but the weights, and verifies hashes when asked', () => {
    const info = inspectCheckpoint(good.dir, { verify: true });
    expect(CheckpointSummary.parse(info)).toEqual(info);
    expect(info).toMatchObject({
      status: 'ok',
      format: 't1',
      id: good.manifest.id,
      kind: 'model',
      parameters: good.manifest.parameters,
      config,
    });
    expect(info.files.every((f) => f.verified === true)).toBe(true);
    expect(info.tensors!.map((t) => t.name)).toEqual(parameterSpecs(config).map((p) => p.name));
    expect(info.tokenizer).toMatchObject({ vocabSize: 512, byteLevel: true, roundTrip: 'exact' });
  });

  test('the registry lists good, broken, nested and external checkpoints, and the partial folders of dead saves', () => {
    const root = fresh('registry');
    const a = save(join(root, 'a'));
    save(join(root, 'runs', 'r1', 'checkpoints', 'step-10'), { parent: a.dir });
    const broken = join(root, 'broken');
    cpSync(good.dir, broken, { recursive: true });
    rmSync(join(broken, 'tokenizer.json'));
    const external = join(root, 'qwen-onnx');
    mkdirSync(external);
    writeFileSync(join(external, 'model.onnx'), 'not really onnx');
    writeFileSync(join(external, 'tokenizer.json'), tokenizer.json);
    // A save that died: its process is gone.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    mkdirSync(join(root, `.c.partial-${dead}-abcd1234`));
    mkdirSync(join(root, 'empty-folder'));

    const listing = listCheckpoints(root);
    const byName = Object.fromEntries(listing.checkpoints.map((c) => [c.name, c]));
    expect(Object.keys(byName).sort()).toEqual(['a', 'broken', 'qwen-onnx', 'step-10']);
    expect(byName.a).toMatchObject({ status: 'ok', kind: 'model', config, parent: null });
    expect(byName['step-10']).toMatchObject({ status: 'ok', parent: { id: a.manifest.id, path: '../../../../a' } });
    expect(byName.broken).toMatchObject({
      status: 'invalid',
      error: { code: 'MISSING_FILE', message: expect.stringContaining('tokenizer.json: missing') },
    });
    expect(byName['qwen-onnx']).toMatchObject({ status: 'ok', format: 'external-onnx' });
    for (const c of listing.checkpoints) expect(CheckpointSummary.parse(c)).toEqual(c);
    expect(listing.partial).toEqual([
      {
        path: join(root, `.c.partial-${dead}-abcd1234`),
        target: join(root, 'c'),
        kind: 'partial',
        pid: dead,
        running: false,
      },
    ]);

    // A partial folder of a live process (this one) is kept: that save may still be running.
    mkdirSync(join(root, `.d.partial-${process.pid}-abcd1234`));
    // An overwriting save that died after moving the old checkpoint aside: the old one comes back.
    cpSync(a.dir, join(root, `.e.replaced-${dead}-abcd1234`), { recursive: true });
    // One that died after publishing its replacement: the old copy goes.
    cpSync(a.dir, join(root, `.a.replaced-${dead}-abcd1234`), { recursive: true });
    expect(recoverPartialSaves(root)).toEqual({
      restored: [join(root, 'e')],
      removed: [join(root, `.a.replaced-${dead}-abcd1234`), join(root, `.c.partial-${dead}-abcd1234`)],
    });
    expect(inspectCheckpoint(join(root, 'e')).id).toBe(a.manifest.id);
    expect(listCheckpoints(root).partial).toEqual([
      {
        path: join(root, `.d.partial-${process.pid}-abcd1234`),
        target: join(root, 'd'),
        kind: 'partial',
        pid: process.pid,
        running: true,
      },
    ]);
    expect(listCheckpoints(join(root, 'nothing-here'))).toEqual({ checkpoints: [], partial: [] });
  });
});

const python = findPython(['safetensors', 'numpy']);
test('Python safetensors reads model.safetensors of a checkpoint: every parameter, named and shaped as config.json says', (ctx) => {
  ctx.skip(!python, pythonSkipNote(['safetensors', 'numpy']));
  const script = `
import json, sys
from safetensors import safe_open
d = json.load(sys.stdin)
with safe_open(d["file"], framework="np") as f:
    out = {"metadata": f.metadata(), "tensors": {k: {"shape": list(f.get_tensor(k).shape), "first": float(f.get_tensor(k).ravel()[0])} for k in f.keys()}}
print(json.dumps(out))`;
  const out = runPythonJson(python!, script, { file: join(good.dir, 'model.safetensors') }) as {
    metadata: Record<string, string>;
    tensors: Record<string, { shape: number[]; first: number }>;
  };
  expect(out.metadata).toEqual({ format: 'pt', model_type: 't1-moe' });
  for (const p of parameterSpecs(config)) {
    expect(out.tensors[p.name]!.shape).toEqual(p.shape);
    expect(out.tensors[p.name]!.first).toBe(weights.get(p.name)![0]);
  }
});
