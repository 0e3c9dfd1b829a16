/**
 * onnxruntime profiling on request: a session made with `profilePrefix` writes a Chrome-trace JSON beside the
 * prefix when released, with one kernel-time event per node run (what docs/examples/ppo-step's
 * profile-summary.py reads); a session without it writes nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GraphBuilder } from '../../../native/onnx/graph';
import { RuntimeSession } from '../../../native/onnx/runtime';
import { makeTempDir } from '../../helpers/tmp';

function addGraph(): Uint8Array {
  const g = new GraphBuilder('add');
  g.input('A', 'float32', [2, 3]);
  g.input('B', 'float32', [2, 3]);
  g.output(g.op('Add', ['A', 'B']), 'Y', 'float32', [2, 3]);
  return g.toModel();
}

describe('onnxruntime profiling', () => {
  const tmp = makeTempDir('t1lab-ort-profile-');

  it('writes each kernel run of a profiled session, and nothing for another', async () => {
    const feeds = {
      A: { dtype: 'float32' as const, dims: [2, 3], data: Float32Array.of(1, 2, 3, 4, 5, 6) },
      B: { dtype: 'float32' as const, dims: [2, 3], data: Float32Array.of(6, 5, 4, 3, 2, 1) },
    };
    const profiled = await RuntimeSession.create(addGraph(), {
      providers: ['cpu'],
      profilePrefix: join(tmp.path, 'p'),
    });
    for (let i = 0; i < 3; i++) await profiled.run(feeds);
    await profiled.release();
    const plain = await RuntimeSession.create(addGraph(), { providers: ['cpu'], profilePrefix: '' });
    await plain.run(feeds);
    await plain.release();
    const files = readdirSync(tmp.path);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^p_.*\.json$/);
    const events = JSON.parse(readFileSync(join(tmp.path, files[0]!), 'utf8')) as {
      cat?: string;
      name: string;
      args?: { op_name?: string };
    }[];
    const adds = events.filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time') && e.args?.op_name === 'Add');
    expect(adds).toHaveLength(3);
  });
});
