// Pure in-context copy: nats per token on the second half of 64 held-out lists of random paths written twice
// ("Paths: ... Again: ..."), after PAD tokens of filler (0: near the start; 300: past the LM's 256-token windows).
// `sure`: share of copied tokens whose probability is above 1/2 (greedy certain to pick them).
// `firstNats`: nats per token on the first writing of the same lists, which no copy can predict: a model that
// does not copy scores about the same on both.
// LISTS `words`: lists of 24 whole vocabulary tokens (letters, digits, `_./ -`, two characters or more) instead
// of paths, each token's earlier occurrence naming the one after it (copying a path needs matches of several
// characters, a list of tokens only one).
// usage: npx tsx docs/examples/copy-drills/copy-nats.ts CHECKPOINT [PAD] [paths|words]
import { openCheckpoint } from '../../../native/model/policy-checkpoint';
import { parameterSpecs } from '../../../native/model/config';
import { createPlacedSession } from '../../../native/model/providers';
import { buildTrainingGraph } from '../../../native/model/training-graph';
import type { HostTensor } from '../../../native/onnx/runtime';
import { createFamilyRng } from '../../../tasks/families/rng';
import { wholeWords } from '../copy-formation/whole-words';

const [dir, padArg, lists = 'paths'] = process.argv.slice(2);
const pad = Number(padArg ?? 0);
const ck = openCheckpoint(dir!, { verifyHashes: false });
if (ck.kind !== 't1-moe') throw new Error('t1-moe');
const tok = ck.tokenizer!;
const T = 512,
  B = 4;
const filler = 'ls -la /var/log\n'.repeat(200);
const words = wholeWords(tok, ck.config.vocab_size);
const sep = lists === 'words' ? '' : '\n';
const docs: { ids: number[]; from: number; list: number; listLength: number }[] = [];
for (let d = 0; d < 64; d++) {
  const r = createFamilyRng(900000 + d);
  const items =
    lists === 'words'
      ? Array.from({ length: 24 }, () => r.pick(words))
      : Array.from(
          { length: 6 },
          () => `${r.pick(['cedar', 'ember', 'notes', 'pixel'])}/${r.word(5)}/${r.word(3)}_${r.word(3)}.txt`,
        );
  const head = tok.encode(filler).slice(0, pad);
  const first = tok.encode(`Paths:\n${items.join(sep)}\nAgain:\n`);
  const second = tok.encode(items.join(sep));
  docs.push({
    ids: [...head, ...first, ...second].slice(0, T + 1),
    from: head.length + first.length,
    list: head.length + tok.encode('Paths:\n').length,
    listLength: second.length,
  });
}
let firstNll = 0,
  firstN = 0;
let nll = 0,
  n = 0,
  sure = 0;
const session = await createPlacedSession(
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
for (let at = 0; at < docs.length; at += B) {
  const batch = docs.slice(at, at + B);
  const ids = new BigInt64Array(B * T),
    targets = new BigInt64Array(B * T),
    mask = new Float32Array(B * T);
  batch.forEach((r, b) => {
    for (let t = 0; t < r.ids.length - 1; t++) {
      ids[b * T + t] = BigInt(r.ids[t]!);
      targets[b * T + t] = BigInt(r.ids[t + 1]!);
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
  const lp = (await session.session.run(feeds, ['logprobs'])).logprobs!.data as Float32Array;
  batch.forEach((r, b) => {
    for (let t = r.list; t < Math.min(r.list + r.listLength, r.from); t++) {
      firstNll -= lp[b * T + t - 1]!;
      firstN++;
    }
    for (let t = r.from; t < r.ids.length; t++) {
      const x = -lp[b * T + t - 1]!;
      nll += x;
      n++;
      if (x < Math.LN2) sure++;
    }
  });
}
console.log(
  JSON.stringify({
    checkpoint: dir,
    pad,
    lists,
    copyNats: +(nll / n).toFixed(3),
    firstNats: +(firstNll / firstN).toFixed(3),
    tokens: n,
    sure: +(sure / n).toFixed(3),
  }),
);
