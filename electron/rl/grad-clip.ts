/** Global gradient-norm clipping: one L2 norm over every trainable parameter's gradient. */

export function globalGradNorm(
  grads: ReadonlyMap<string, ArrayLike<number>>,
  include: (name: string) => boolean = () => true,
): number {
  let sum = 0;
  for (const [name, g] of grads) {
    if (!include(name)) continue;
    for (let i = 0; i < g.length; i++) sum += g[i]! * g[i]!;
  }
  return Math.sqrt(sum);
}

/** The factor that brings `norm` down to `maxNorm` (1 when it is already below, or clipping is off). */
export function clipScale(norm: number, maxNorm: number | null): number {
  if (maxNorm === null || maxNorm <= 0 || !Number.isFinite(norm) || norm <= maxNorm) return 1;
  return maxNorm / (norm + 1e-6);
}
