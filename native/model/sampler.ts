/**
 * Picking the next token from logits: temperature, top-k, top-p, seeded. Computed in float64 from the
 * graph's float32 logits. The log-prob returned is of the tempered, untruncated distribution (greedy:
 * temperature 1), which is what the trainer recomputes.
 */
import { seededUniform } from '../util/random';
import type { ResolvedGenerateOptions } from './policy-api';

export interface TokenPick {
  id: number;
  logprob: number;
}

export class TokenSampler {
  private readonly uniform: () => number;

  constructor(
    private readonly options: Pick<ResolvedGenerateOptions, 'temperature' | 'topK' | 'topP'>,
    seed: number,
  ) {
    this.uniform = seededUniform(seed);
  }

  /** Greedy, or a draw from the whole tempered distribution: what the graph's sampling head can do. */
  untruncated(vocab: number): boolean {
    const { temperature, topK, topP } = this.options;
    return temperature === 0 || ((topK === 0 || topK >= vocab) && topP >= 1);
  }

  /** 1 / temperature, or 1 for greedy (whose log-prob is of the temperature-1 distribution). */
  inverseTemperature(): number {
    return this.options.temperature > 0 ? 1 / this.options.temperature : 1;
  }

  /** The uniform the next untruncated draw uses (what `pick` would draw); greedy draws none. */
  drawUniform(): number {
    return this.options.temperature === 0 ? 0 : this.uniform();
  }

  /** `logits` holds V values starting at `offset`. */
  pick(logits: Float32Array, offset: number, vocab: number): TokenPick {
    const t = this.options.temperature;
    const scale = t > 0 ? 1 / t : 1;
    let max = -Infinity;
    let argmax = 0;
    for (let i = 0; i < vocab; i++) {
      const v = logits[offset + i]!;
      if (v > max) {
        max = v;
        argmax = i;
      }
    }
    const probs = new Float64Array(vocab);
    let sum = 0;
    for (let i = 0; i < vocab; i++) {
      const p = Math.exp((logits[offset + i]! - max) * scale);
      probs[i] = p;
      sum += p;
    }
    const logZ = Math.log(sum);
    const logprobOf = (id: number) => (logits[offset + id]! - max) * scale - logZ;
    if (t === 0) return { id: argmax, logprob: logprobOf(argmax) };

    const { topK, topP } = this.options;
    const u = this.uniform();
    if ((topK === 0 || topK >= vocab) && topP >= 1) {
      let acc = 0;
      const target = u * sum;
      for (let i = 0; i < vocab; i++) {
        acc += probs[i]!;
        if (acc > target) return { id: i, logprob: logprobOf(i) };
      }
      return { id: argmax, logprob: logprobOf(argmax) };
    }
    // Truncated: candidates by descending probability (ties by id, for determinism).
    const order = Array.from({ length: vocab }, (_, i) => i).sort((a, b) => probs[b]! - probs[a]! || a - b);
    let keep = topK > 0 ? Math.min(topK, vocab) : vocab;
    if (topP < 1) {
      let acc = 0;
      for (let i = 0; i < keep; i++) {
        acc += probs[order[i]!]! / sum;
        if (acc >= topP) {
          keep = i + 1;
          break;
        }
      }
    }
    let kept = 0;
    for (let i = 0; i < keep; i++) kept += probs[order[i]!]!;
    const target = u * kept;
    let acc = 0;
    for (let i = 0; i < keep; i++) {
      acc += probs[order[i]!]!;
      if (acc > target) return { id: order[i]!, logprob: logprobOf(order[i]!) };
    }
    return { id: order[0]!, logprob: logprobOf(order[0]!) };
  }
}

/**
 * The `n` most likely tokens of `logits[offset, offset + vocab)` with their log-probs under temperature
 * `temperature` (greedy: 1), most likely first, ties by id: the same log-probs `TokenSampler.pick` returns.
 */
export function topAlternatives(
  logits: Float32Array,
  offset: number,
  vocab: number,
  n: number,
  temperature: number,
): TokenPick[] {
  const scale = temperature > 0 ? 1 / temperature : 1;
  let max = -Infinity;
  for (let i = 0; i < vocab; i++) max = Math.max(max, logits[offset + i]!);
  let sum = 0;
  for (let i = 0; i < vocab; i++) sum += Math.exp((logits[offset + i]! - max) * scale);
  const logZ = Math.log(sum);
  // A small sorted list: n is at most 20, the vocabulary tens of thousands.
  const best: TokenPick[] = [];
  const count = Math.min(n, vocab);
  for (let i = 0; i < vocab; i++) {
    const v = logits[offset + i]!;
    if (best.length === count && v <= logits[offset + best[count - 1]!.id]!) continue;
    let at = best.length;
    while (at > 0 && logits[offset + best[at - 1]!.id]! < v) at--;
    best.splice(at, 0, { id: i, logprob: (v - max) * scale - logZ });
    if (best.length > count) best.pop();
  }
  return best;
}

/** A seed for requests that give none (still recorded, so the run can be repeated). */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 32);
}
