import { PRESETS } from './native/model/config';
import { initParameters } from './native/model/init';
import { loadT1Policy } from './native/model/policy-model';
import { BatchDecoder } from './native/model/decoder';
import { GenerateOptions } from './native/model/policy-api';
const preset = (process.argv[2] ?? 'micro') as 'micro';
const ec = (process.argv[3] ?? 'dense') as 'dense';
const config = PRESETS[preset];
const w = initParameters(config, 1);
const p = await loadT1Policy(config, w, { provider: 'cpu' }, ec);
for (const batch of [1, 8]) {
  const d = new BatchDecoder(p.decoder);
  const run = () => Promise.all(Array.from({ length: batch }, (_, i) => d.generate(Array.from({ length: 128 }, (_, t) => (t * 31 + i) % config.vocab_size), { ...GenerateOptions.parse({ maxTokens: 32 }), seed: i })));
  await run();
  const r = await run();
  const ms = Math.max(...r.map((x) => x.timing.decodeMs));
  console.log(preset, ec, `b${batch}`, ((r.reduce((n, x) => n + x.timing.steps, 0) / ms) * 1000).toFixed(0), 'tok/s', (ms / r[0]!.timing.steps).toFixed(2), 'ms/step');
}
