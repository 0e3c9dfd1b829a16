/** Provider placement on this (GPU-less) machine: auto falls back to CPU with a reason, explicit CUDA fails clearly. */
import { describe, expect, it } from 'vitest';
import {
  createPlacedSession,
  cudaLikely,
  probeProviders,
  ProviderUnavailableError,
} from '../../../native/model/providers';
import { GraphBuilder } from '../../../native/onnx/graph';
import { optionalSkip } from '../../helpers/skip';

const cudaHere = optionalSkip('this machine may have CUDA (these cases check the fallback on a machine without it)');

function tinyModel(): Uint8Array {
  const g = new GraphBuilder();
  g.input('x', 'float32', [2]);
  g.output(g.op('Neg', ['x']), 'y', 'float32', [2]);
  return g.toModel();
}

describe('execution provider placement', () => {
  it('cpu is honoured', async () => {
    const p = await createPlacedSession(tinyModel(), { choice: 'cpu', intraOpThreads: 1 });
    expect(p.provider).toBe('cpu');
    expect(p.fallbackReason).toBeNull();
    const out = await p.session.run({ x: { dtype: 'float32', dims: [2], data: Float32Array.from([1, -2]) } });
    expect(Array.from(out.y!.data as Float32Array)).toEqual([-1, 2]);
    await p.session.release();
  });

  it('auto falls back to CPU and says why; explicit cuda fails with the reason', async (ctx) => {
    ctx.skip(cudaLikely().possible, cudaHere);
    const p = await createPlacedSession(tinyModel(), { choice: 'auto' });
    expect(p.provider).toBe('cpu');
    expect(p.fallbackReason).toMatch(/NVIDIA|CUDA/);
    await p.session.release();
    await expect(createPlacedSession(tinyModel(), { choice: 'cuda' })).rejects.toThrow(ProviderUnavailableError);
    await expect(createPlacedSession(tinyModel(), { choice: 'cuda' })).rejects.toThrow(
      /CUDA execution provider was requested but/,
    );
  });

  it('a CUDA session that onnxruntime cannot load falls back with its error (forced attempt)', async (ctx) => {
    ctx.skip(cudaLikely().possible, cudaHere);
    // cudaPossible forces the attempt; without the CUDA libraries onnxruntime refuses to append the provider.
    const p = await createPlacedSession(tinyModel(), { choice: 'auto', cudaPossible: true });
    expect(p.provider).toBe('cpu');
    expect(p.fallbackReason).toMatch(/CUDA provider failed to load: .*Cuda/);
    await p.session.release();
  });

  it('the probe reports cpu available', async () => {
    const probe = await probeProviders({ hasNvidiaGpu: false });
    expect(probe.providers.find((p) => p.name === 'cpu')?.available).toBe(true);
    expect(probe.providers.find((p) => p.name === 'cuda')?.available).toBe(false);
  });
});
