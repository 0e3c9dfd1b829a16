/**
 * ONNX models past protobuf's 2 GiB limit: the weights go to an external data file beside model.onnx.
 * A model just over 2 GiB takes minutes to build and load on the 2-core development machine, so the path
 * is forced on a small checkpoint (T1LAB_ONNX_EXTERNAL_DATA_BYTES lowers the threshold) and compared with
 * the same model written inline: `model export-onnx` (model.onnx + model.onnx.data, loaded by path as an
 * external checkpoint), and the policy's own sampling graph (built with external data in a private folder).
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { exportOnnx } from '../../../electron/lab/models/operations';
import { BatchDecoder } from '../../../native/model/decoder';
import { GenerateOptions } from '../../../native/model/policy-api';
import { openCheckpoint } from '../../../native/model/policy-checkpoint';
import { loadExternalPolicy, loadT1Policy, type LoadedPolicy } from '../../../native/model/policy-model';
import { RuntimeSession, type HostTensor } from '../../../native/onnx/runtime';
import { loadCheckpoint } from '../../../native/model/checkpoint';
import { writeTinyCheckpoint } from '../../helpers/tiny-checkpoint';

const root = mkdtempSync(join(tmpdir(), 't1-onnx-external-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  delete process.env.T1LAB_ONNX_EXTERNAL_DATA_BYTES;
});
const dir = writeTinyCheckpoint(join(root, 'tiny'), 3);
const PROMPT = [5, 17, 42, 9, 100, 3, 77];

async function logits(path: string, layers: number, kvHeads: number, headDim: number): Promise<Float32Array> {
  const session = await RuntimeSession.create(path, { providers: ['cpu'], intraOpThreads: 1 });
  try {
    const S = PROMPT.length;
    const ints = (values: number[]): HostTensor => ({
      dtype: 'int64',
      dims: [1, S],
      data: BigInt64Array.from(values.map(BigInt)),
    });
    const feeds: Record<string, HostTensor> = {
      input_ids: ints(PROMPT),
      attention_mask: ints(PROMPT.map(() => 1)),
      position_ids: ints(PROMPT.map((_, i) => i)),
    };
    for (let l = 0; l < layers; l++)
      for (const kv of ['key', 'value'])
        feeds[`past_key_values.${l}.${kv}`] = {
          dtype: 'float32',
          dims: [1, kvHeads, 0, headDim],
          data: new Float32Array(0),
        };
    return (await session.run(feeds, ['logits'])).logits!.data as Float32Array;
  } finally {
    await session.release();
  }
}

async function greedy(policy: LoadedPolicy, n = 12): Promise<number[]> {
  const decoder = new BatchDecoder(policy.decoder);
  try {
    const r = await decoder.generate([...PROMPT], {
      ...GenerateOptions.parse({ maxTokens: n, temperature: 0 }),
      seed: 1,
    });
    return r.tokens.map((t) => t.id);
  } finally {
    await decoder.close();
    await policy.decoder.session.release();
  }
}

describe('ONNX external data (models past 2 GiB)', () => {
  it('export-onnx writes model.onnx + model.onnx.data; loaded by path it computes what the inline export computes', async () => {
    const inline = exportOnnx(dir, join(root, 'inline'));
    expect(inline.externalData).toBeNull();
    process.env.T1LAB_ONNX_EXTERNAL_DATA_BYTES = '1';
    const external = exportOnnx(dir, join(root, 'external'));
    expect(external.externalData).toEqual({
      path: join(root, 'external', 'model.onnx.data'),
      bytes: statSync(join(root, 'external', 'model.onnx.data')).size,
    });
    // The weights left the proto: what remains is the graph and the small tensors (under 1 KiB each).
    const { config, parameters } = loadCheckpoint(dir);
    const big = [...parameters.values()].filter((w) => w.byteLength >= 1024).reduce((n, w) => n + w.byteLength, 0);
    expect(external.bytes).toBeLessThan(inline.bytes - 0.9 * big);
    expect(external.externalData!.bytes).toBeGreaterThanOrEqual(big);

    const a = await logits(inline.path, config.num_hidden_layers, config.num_key_value_heads, config.head_dim);
    const b = await logits(external.path, config.num_hidden_layers, config.num_key_value_heads, config.head_dim);
    expect(b.length).toBe(a.length);
    expect(b).toEqual(a);

    // As an external checkpoint (`--policy onnx:DIR`): opened from its path, so the data file is found.
    const opened = openCheckpoint(join(root, 'external'));
    expect(opened.kind).toBe('external-onnx');
    const settings = { provider: 'cpu' as const, intraOpThreads: 1 };
    const hf = { vocab_size: config.vocab_size, max_position_embeddings: config.max_position_embeddings };
    expect(
      await greedy(await loadExternalPolicy(opened.kind === 'external-onnx' ? opened.modelPath : '', hf, settings)),
    ).toEqual(await greedy(await loadExternalPolicy(inline.path, hf, settings)));
  });

  it("the policy's sampling graph with external data samples the same tokens", async () => {
    const { config, parameters } = loadCheckpoint(dir);
    const privateFolders = () =>
      readdirSync(tmpdir())
        .filter((f) => f.startsWith('t1lab-onnx-'))
        .sort();
    const before = privateFolders();
    const plain = await greedy(await loadT1Policy(config, parameters, { provider: 'cpu', intraOpThreads: 1 }));
    process.env.T1LAB_ONNX_EXTERNAL_DATA_BYTES = '1';
    const logs: string[] = [];
    const external = await greedy(
      await loadT1Policy(config, parameters, { provider: 'cpu', intraOpThreads: 1, log: (m) => logs.push(m) }),
    );
    expect(logs.join('\n')).toContain('(weights as external data)');
    expect(external).toEqual(plain);
    expect(plain.length).toBe(12);
    // The private folder is gone once the session holds the weights.
    expect(privateFolders()).toEqual(before);
  });
});
