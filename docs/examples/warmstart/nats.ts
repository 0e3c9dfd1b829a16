// Per-token NLL of a checkpoint on SFT samples' assistant tokens: wrapper, command, and the command's
// "name" tokens (inside a word of 3+ chars that also occurs in the sample's instruction), and the first token
// of each name on its own (where a copy starts; `nameFirstSure` is the share of those whose probability is
// above 1/2, which greedy decoding is certain to pick).
// usage: npx tsx docs/examples/warmstart/nats.ts CHECKPOINT SAMPLES.jsonl [maxSamples]
import { readFileSync } from 'node:fs';
import { openCheckpoint } from '../../../native/model/policy-checkpoint';
import { parameterSpecs } from '../../../native/model/config';
import { createPlacedSession } from '../../../native/model/providers';
import { buildTrainingGraph, lengthBucket } from '../../../native/model/training-graph';
import type { HostTensor } from '../../../native/onnx/runtime';

const [dir, file, maxS] = process.argv.slice(2);
const ck = openCheckpoint(dir!, { verifyHashes: false });
if (ck.kind !== 't1-moe') throw new Error('t1-moe only');
const tok = ck.tokenizer!;
const rows = readFileSync(file!, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l))
  .slice(0, Number(maxS ?? 1000));
const acc: Record<string, [number, number]> = {
  wrapper: [0, 0],
  command: [0, 0],
  name: [0, 0],
  other: [0, 0],
  nameFirst: [0, 0],
};
let sureFirst = 0;
const B = 4;
const sessions = new Map<number, Awaited<ReturnType<typeof createPlacedSession>>>();
for (let at = 0; at < rows.length; at += B) {
  const batch = rows.slice(at, at + B);
  const T = lengthBucket(Math.max(...batch.map((r) => r.ids.length - 1)));
  const ids = new BigInt64Array(B * T),
    targets = new BigInt64Array(B * T),
    mask = new Float32Array(B * T);
  batch.forEach((r, b) => {
    for (let t = 0; t < r.ids.length - 1; t++) {
      ids[b * T + t] = BigInt(r.ids[t]);
      targets[b * T + t] = BigInt(r.ids[t + 1]);
      mask[b * T + t] = 1;
    }
  });
  const feeds: Record<string, HostTensor> = {
    input_ids: { dtype: 'int64', dims: [B, T], data: ids },
    targets: { dtype: 'int64', dims: [B, T], data: targets },
    attention_mask: { dtype: 'float32', dims: [B, T], data: mask },
  };
  for (const p of parameterSpecs(ck.config))
    feeds[p.name] = { dtype: 'float32', dims: p.shape, data: ck.weights.get(p.name)! };
  let placed = sessions.get(T);
  if (!placed) {
    placed = await createPlacedSession(
      buildTrainingGraph(ck.config, {
        batch: B,
        length: T,
        dtype: 'float32',
        expertCompute: 'dense',
        forcedRouting: false,
        loss: null,
      }).bytes,
      { choice: 'cpu', intraOpThreads: 1 },
    );
    sessions.set(T, placed);
  }
  const lp = (await placed.session.run(feeds, ['logprobs'])).logprobs!.data as Float32Array;
  batch.forEach((r, b) => {
    const full = tok.decode(r.ids);
    const userAt = full.indexOf('<|im_start|>user\n');
    const instruction = full.slice(userAt, full.indexOf('<|im_end|>', userAt));
    const words = new Set(
      (instruction.match(/[A-Za-z0-9_./-]{3,}/g) ?? [])
        .map((w) => w.replace(/^[./]+|[./]+$/g, ''))
        .filter((w) => w.length >= 3),
    );
    for (const seg of r.segments) {
      if (seg.kind !== 'sampled') continue;
      const pieces: string[] = [];
      for (let i = 0; i < seg.length; i++) pieces.push(tok.decode([r.ids[seg.start + i]]));
      const text = pieces.join('');
      const cmdStart = text.indexOf('"command":"') + 11;
      const cmdEnd = cmdStart > 10 ? text.lastIndexOf('"}') : -1;
      const nameSpans: [number, number][] = [];
      if (cmdStart > 10)
        for (const w of words) {
          let k = text.indexOf(w, cmdStart);
          while (k >= 0 && k < cmdEnd) {
            nameSpans.push([k, k + w.length]);
            k = text.indexOf(w, k + 1);
          }
        }
      let pos = 0;
      pieces.forEach((p, i) => {
        const a = pos,
          z = pos + p.length;
        pos = z;
        const nll = -lp[b * T + seg.start + i - 1]!;
        const inCmd = cmdStart > 10 && a >= cmdStart && z <= cmdEnd;
        const k = !inCmd ? 'wrapper' : nameSpans.some(([x, y]) => a < y && z > x && a >= x - 1) ? 'name' : 'other';
        acc[k]![0] += nll;
        acc[k]![1]++;
        if (k === 'name' && nameSpans.some(([x]) => a <= x && x < z)) {
          acc.nameFirst![0] += nll;
          acc.nameFirst![1]++;
          if (nll < Math.LN2) sureFirst++;
        }
        if (inCmd) {
          acc.command![0] += nll;
          acc.command![1]++;
        }
      });
    }
  });
}
for (const s of sessions.values()) await s.session.release();
const o: Record<string, unknown> = { checkpoint: dir, samples: rows.length };
for (const [k, [s, n]] of Object.entries(acc)) o[k] = { natsPerToken: +(s / Math.max(1, n)).toFixed(3), tokens: n };
o.nameFirstSure = +(sureFirst / Math.max(1, acc.nameFirst![1])).toFixed(3);
console.log(JSON.stringify(o));
