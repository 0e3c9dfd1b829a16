import * as ort from 'onnxruntime-node';
import { readFileSync, readdirSync } from 'node:fs';
import { PRESETS } from './native/model/config';
import { initParameters } from './native/model/init';
import { buildSamplingGraph, pastKeyName, pastValueName } from './native/model/sampling-graph';
const config = PRESETS[(process.argv[2] ?? 'micro') as 'micro'];
const ec = (process.argv[3] ?? 'sparse') as 'sparse';
const g = buildSamplingGraph(config, initParameters(config, 1), { expertCompute: ec });
const s = await ort.InferenceSession.create(g.bytes, { enableProfiling: true, profileFilePrefix: '/tmp/ortprof', logSeverityLevel: 3 });
const B = 8, P = 160, L = config.num_hidden_layers;
const feeds: Record<string, ort.Tensor> = {
  input_ids: new ort.Tensor('int64', BigInt64Array.from({ length: B }, (_, i) => BigInt(i + 3)), [B, 1]),
  position_ids: new ort.Tensor('int64', new BigInt64Array(B).fill(BigInt(P)), [B, 1]),
  attention_mask: new ort.Tensor('int64', new BigInt64Array(B * (P + 1)).fill(1n), [B, P + 1]),
};
for (let l = 0; l < L; l++) {
  const n = B * config.num_key_value_heads * P * config.head_dim;
  feeds[pastKeyName(l)] = new ort.Tensor('float32', Float32Array.from({ length: n }, (_, i) => Math.sin(i)), [B, config.num_key_value_heads, P, config.head_dim]);
  feeds[pastValueName(l)] = new ort.Tensor('float32', Float32Array.from({ length: n }, (_, i) => Math.cos(i)), [B, config.num_key_value_heads, P, config.head_dim]);
}
for (let i = 0; i < 30; i++) await s.run(feeds);
const t = performance.now();
for (let i = 0; i < 30; i++) await s.run(feeds);
console.log('ms/step', ((performance.now() - t) / 30).toFixed(2), 'nodes', g.nodeCount);
s.endProfiling();
const file = '/tmp/' + readdirSync('/tmp').filter((f) => f.startsWith('ortprof')).sort().at(-1)!;
const events = JSON.parse(readFileSync(file, 'utf8')) as { cat: string; name: string; dur: number; args?: { op_name?: string } }[];
const byOp = new Map<string, number>();
let total = 0;
for (const e of events) if (e.cat === 'Node' && e.name.endsWith('_kernel_time')) { const op = e.args?.op_name ?? '?'; byOp.set(op, (byOp.get(op) ?? 0) + e.dur); total += e.dur; }
const runs = events.filter((e) => e.cat === 'Session' && e.name === 'model_run');
const runTotal = runs.reduce((a, e) => a + e.dur, 0);
console.log('kernel us/run', (total / runs.length).toFixed(0), 'model_run us', (runTotal / runs.length).toFixed(0));
console.log([...byOp.entries()].sort((a, b) => b[1] - a[1]).slice(0, 18).map(([k, v]) => `${k}:${(v / runs.length).toFixed(0)}`).join('  '));

const byNode = new Map<string, number>();
for (const e of events) if (e.cat === 'Node' && e.name.endsWith('_kernel_time')) byNode.set(e.name, (byNode.get(e.name) ?? 0) + e.dur);
console.log([...byNode.entries()].sort((a, b) => b[1] - a[1]).slice(0, 14).map(([k, v]) => `${k.replace('_kernel_time', '')}:${(v / runs.length).toFixed(0)}`).join('\n'));
