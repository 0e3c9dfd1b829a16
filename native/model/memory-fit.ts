/**
 * Whether a model fits this machine's memory, decided from its config before any weight is read. The
 * figures per parameter are measured peaks (resident memory), not the size of the weights on disk:
 * - sampling: the lab's float32 weights, the sampling graph's fused copies and its model proto, and
 *   onnxruntime's initializers and pre-packed matrices: 19.9 bytes per parameter measured on a
 *   35.7M-parameter model (14.4 with the weights as ONNX external data);
 * - training: float32 weights, gradients and AdamW's two moments (16 bytes per parameter) before any
 *   activation, a lower bound;
 * - PPO holds both (the trainer and the sampling policy worker).
 * The limit is the machine's total memory (T1LAB_MEMORY_LIMIT_BYTES sets another); the message also says
 * how much is available now, since other programs hold some of it.
 */
import { freemem, totalmem } from 'node:os';

export type MemoryUse = 'sampling' | 'training';

export const BYTES_PER_PARAMETER: Record<MemoryUse, number> = { sampling: 20, training: 16 };
const WHAT: Record<MemoryUse, string> = {
  sampling: "sampling (float32 weights, the graph and onnxruntime's copies)",
  training: 'training (float32 weights, gradients, AdamW moments; activations come on top)',
};

export class MemoryFitError extends Error {
  override readonly name = 'MemoryFitError';
}

const gib = (n: number) => `${(n / 2 ** 30).toFixed(1)} GiB`;

/** The memory a model needs for these uses, and the machine's limit. */
export function memoryNeed(
  parameters: number,
  uses: readonly MemoryUse[],
): { need: number; limit: number; available: number } {
  const need = uses.reduce((n, u) => n + parameters * BYTES_PER_PARAMETER[u], 0);
  const forced = Number(process.env.T1LAB_MEMORY_LIMIT_BYTES);
  return { need, limit: Number.isFinite(forced) && forced > 0 ? forced : totalmem(), available: freemem() };
}

/** Throws a MemoryFitError naming the numbers when the model cannot fit; `source` names the folder. */
export function checkMemoryFit(source: string, parameters: number, uses: readonly MemoryUse[]): void {
  const { need, limit, available } = memoryNeed(parameters, uses);
  if (need <= limit) return;
  const parts = uses.map((u) => `${BYTES_PER_PARAMETER[u]} bytes per parameter for ${WHAT[u]}`).join(' plus ');
  const machine = process.env.T1LAB_MEMORY_LIMIT_BYTES
    ? `the limit is ${gib(limit)} (T1LAB_MEMORY_LIMIT_BYTES)`
    : `this machine has ${gib(limit)} of memory`;
  throw new MemoryFitError(
    `${source}: ${(parameters / 1e6).toFixed(1)}M parameters need about ${gib(need)} (${parts}); ${machine}, ${gib(available)} available now. Not loading: use a machine with more memory or a smaller model.`,
  );
}
