import * as ort from 'onnxruntime-node';
import { PRESETS } from './native/model/config';
import { initParameters } from './native/model/init';
import { buildSamplingGraph, pastKeyName, pastValueName } from './native/model/sampling-graph';
const config = PRESETS[(process.argv[2] ?? 'micro') as 'micro'];
const ec = (process.argv[3] ?? 'sparse') as 'sparse';
const B = Number(process.argv[4] ?? 8);
const g = buildSamplingGraph(config, initParameters(config, 1), { expertCompute: ec });
const s = await ort.InferenceSession.create(g.bytes, { intraOpNumThreads: 1, logSeverityLevel: 3 });
const P = 160, L = config.num_hidden_layers;
const feeds: Record<string, ort.Tensor> = {
  input_ids: new ort.Tensor('int64', BigInt64Array.from({ length: B }, (_, i) => BigInt(i * 37 + 3)), [B, 1]),
  position_ids: new ort.Tensor('int64', new BigInt64Array(B).fill(BigInt(P)), [B, 1]),
  attention_mask: new ort.Tensor('int64', new BigInt64Array(B * (P + 1)).fill(1n), [B, P + 1]),
};
for (let l = 0; l < L; l++) {
  const n = B * config.num_key_value_heads * P * config.head_dim;
  feeds[pastKeyName(l)] = new ort.Tensor('float32', Float32Array.from({ length: n }, (_, i) => Math.sin(i)), [B, config.num_key_value_heads, P, config.head_dim]);
  feeds[pastValueName(l)] = new ort.Tensor('float32', Float32Array.from({ length: n }, (_, i) => Math.cos(i)), [B, config.num_key_value_heads, P, config.head_dim]);
}
for (let i = 0; i < 10; i++) await s.run(feeds);
let best = Infinity;
for (let i = 0; i < 60; i++) { const t = performance.now(); await s.run(feeds); best = Math.min(best, performance.now() - t); }
console.log(process.argv.slice(2).join(' '), 'best ms/step', best.toFixed(2), 'nodes', g.nodeCount);
