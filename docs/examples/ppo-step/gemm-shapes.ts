/**
 * How close onnxruntime's MatMul gets to the benchmark's GEMM roofline at the nano model's own shapes in a
 * PPO micro-batch (4 rows of about 1,216 positions, 8 experts, top-2, head_dim 32, ~2,000 loss positions),
 * forward and backward, each timed alone as the fastest of many runs. The roofline the benchmark divides by
 * (`measureGemmRoofline`: 256 x 512 x 2048 with a constant B that onnxruntime pre-packs) comes first, then
 * the same product with B fed as an input, as every weight of a training graph is. The update cannot run its
 * matmuls faster than these rates, whatever the graph around them does. Usage (on a quiet machine):
 *
 *   npx tsx docs/examples/ppo-step/gemm-shapes.ts
 */
import { measureGemmRoofline, timeIt } from '../../../native/model/bench';
import { GraphBuilder } from '../../../native/onnx/graph';
import { RuntimeSession } from '../../../native/onnx/runtime';

const values = (n: number, seed: number) =>
  Float32Array.from({ length: n }, (_, i) => ((i * seed) % 1000) / 1000 - 0.5);

/** GFLOP/s of a batched [batch, M, K] x [batch, K, N] product (batch 1: a plain matmul), both fed as inputs. */
async function rate(batch: number, M: number, K: number, N: number): Promise<number> {
  const g = new GraphBuilder('gemm');
  const a = batch === 1 ? [M, K] : [batch, M, K];
  const b = batch === 1 ? [K, N] : [batch, K, N];
  g.input('A', 'float32', a);
  g.input('B', 'float32', b);
  g.output(g.op('MatMul', ['A', 'B']), 'Y', 'float32', batch === 1 ? [M, N] : [batch, M, N]);
  const s = await RuntimeSession.create(g.toModel(), { providers: ['cpu'] });
  const feeds = {
    A: { dtype: 'float32' as const, dims: a, data: values(batch * M * K, 104729) },
    B: { dtype: 'float32' as const, dims: b, data: values(batch * K * N, 7919) },
  };
  const ms = await timeIt(() => s.run(feeds), 40, 3);
  await s.release();
  return (2 * batch * M * K * N) / ms / 1e6;
}

const roofline = (await measureGemmRoofline(undefined, false)).gflops;
const line = (name: string, gflops: number) =>
  console.log(
    `${name.padEnd(84)} ${gflops.toFixed(1).padStart(6)} GFLOP/s  ${((100 * gflops) / roofline).toFixed(0).padStart(3)}% of the roofline`,
  );
line('roofline 256x512x2048, B a constant (pre-packed), as the benchmark measures it', roofline);
const shapes: [string, number, number, number, number][] = [
  ['the same product, B an input', 1, 256, 512, 2048],
  ['forward: q, o projection (4 x 1216 positions, 128 -> 128)', 1, 4864, 128, 128],
  ['forward: k, v projection (128 -> 64)', 1, 4864, 128, 64],
  ['forward: expert gate/up (1216 routed rows, 128 -> 192)', 1, 1216, 128, 192],
  ['forward: expert down (192 -> 128)', 1, 1216, 192, 128],
  ['forward: attention scores, one 128-query block (16 heads x rows, hd 32, 1216 keys)', 16, 128, 32, 1216],
  ['forward: attention context (1216 keys -> hd 32)', 16, 128, 1216, 32],
  ['forward: vocabulary head (2000 loss positions, 128 -> 4096)', 1, 2000, 128, 4096],
  ['backward: q weight gradient (128 x 4864 positions x 128)', 1, 128, 4864, 128],
  ['backward: expert gate/up weight gradient (128 x 1216 rows x 192)', 1, 128, 1216, 192],
  ['backward: expert input gradient (1216 rows, 192 -> 128)', 1, 1216, 192, 128],
  ['backward: vocabulary head weight gradient (128 x 2000 x 4096)', 1, 128, 2000, 4096],
];
for (const [name, batch, M, K, N] of shapes) line(name, await rate(batch, M, K, N));
