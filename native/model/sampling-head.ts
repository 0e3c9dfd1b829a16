/**
 * Sampling inside the graph, for untruncated sampling (temperature only) and greedy decoding: the same
 * inverse-CDF draw as TokenSampler, but on onnxruntime's vectorized kernels. In JavaScript the draw costs
 * O(vocabulary) exponentials per row per step (about 0.3 ms at 8k tokens: at batch 64 more than the
 * model's forward pass); here it is a few microseconds, and only [B] numbers cross the binding. The
 * uniform comes from the row's seeded generator, so a seed still fixes the tokens. Top-k and top-p rows
 * keep the JavaScript sampler (they need the logits and a sort).
 *
 * Inputs:  sample_uniform [B] float32 (u in [0, 1)), sample_inv_temperature [B] float32 (1 for greedy).
 * Outputs: sample.id [B] int64 (the first id whose cumulative probability exceeds u), sample.logprob [B],
 *          sample.argmax [B] int64 (ties: the lowest id), sample.argmax_logprob [B]; log-probs of the
 *          tempered distribution.
 */
import type { GraphBuilder } from '../onnx/graph';

export const SAMPLE_UNIFORM = 'sample_uniform';
export const SAMPLE_INV_TEMPERATURE = 'sample_inv_temperature';
export const SAMPLE_OUTPUTS = {
  id: 'sample.id',
  logprob: 'sample.logprob',
  argmax: 'sample.argmax',
  argmaxLogprob: 'sample.argmax_logprob',
} as const;

/** Adds the head on `logits` ([B, V], one row per sequence) with its inputs and outputs. */
export function addSamplingHead(g: GraphBuilder, logits: string, vocab: number): void {
  const u = g.input(SAMPLE_UNIFORM, 'float32', ['batch']);
  const invTemperature = g.input(SAMPLE_INV_TEMPERATURE, 'float32', ['batch']);
  const column = (x: string) => g.op('Unsqueeze', [x, g.ints([1])]);
  const row = (x: string) => g.op('Squeeze', [x, g.ints([1])]);
  const logProbs = g.op('LogSoftmax', [g.op('Mul', [logits, column(invTemperature)])], { axis: -1 }); // [B, V]
  const cdf = g.op('CumSum', [g.op('Exp', [logProbs]), g.int(1)]); // [B, V]
  const total = g.op('Slice', [cdf, g.ints([-1]), g.ints([vocab]), g.ints([1])]); // [B, 1], about 1
  const below = g.op('Cast', [g.op('LessOrEqual', [cdf, g.op('Mul', [column(u), total])])], { to: 7 });
  const id = g.op('Min', [
    g.op('ReduceSum', [below, g.ints([1])], { keepdims: 0 }),
    g.constant('int64', [], [vocab - 1]),
  ]); // [B]
  const argmax = g.op('ArgMax', [logProbs], { axis: 1, keepdims: 0 }); // [B]
  const logprobAt = (ids: string) => row(g.op('GatherElements', [logProbs, column(ids)], { axis: 1 }));
  g.output(id, SAMPLE_OUTPUTS.id, 'int64', ['batch']);
  g.output(logprobAt(id), SAMPLE_OUTPUTS.logprob, 'float32', ['batch']);
  g.output(argmax, SAMPLE_OUTPUTS.argmax, 'int64', ['batch']);
  g.output(logprobAt(argmax), SAMPLE_OUTPUTS.argmaxLogprob, 'float32', ['batch']);
}
