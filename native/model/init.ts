/** Fresh weights for `model init`: seeded, so the same seed gives the same checkpoint bit for bit. */
import { parameterSpecs, type ModelConfig } from './config';

/** A small, fast, seedable generator (SplitMix32-style); Math.random cannot be seeded. */
export function seededUniform(seed: number): () => number {
  let s = seed >>> 0 || 0x9e3779b9;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 2 ** 32;
  };
}

/** Standard normal draws (Box-Muller) from a uniform source. */
export function seededNormal(seed: number): () => number {
  const u = seededUniform(seed);
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const r = Math.sqrt(-2 * Math.log(1 - u()));
    const t = 2 * Math.PI * u();
    spare = r * Math.sin(t);
    return r * Math.cos(t);
  };
}

export function initParameters(config: ModelConfig, seed: number): Map<string, Float32Array> {
  const normal = seededNormal(seed);
  const std = config.initializer_range;
  const scaled = std / Math.sqrt(2 * config.num_hidden_layers);
  const out = new Map<string, Float32Array>();
  for (const p of parameterSpecs(config)) {
    const size = p.shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(size);
    if (p.init === 'ones') data.fill(1);
    else if (p.init === 'normal' || p.init === 'normal-scaled') {
      const s = p.init === 'normal' ? std : scaled;
      for (let i = 0; i < size; i++) data[i] = normal() * s;
    }
    out.set(p.name, data);
  }
  return out;
}
