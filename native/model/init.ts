/** Fresh weights for `model init`: seeded, so the same seed gives the same checkpoint bit for bit. */
import { parameterSpecs, type ModelConfig } from './config';
import { seededNormal } from '../util/random';

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
