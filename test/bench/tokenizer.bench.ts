/**
 * Tokenizer figures (issue 6): byte-level BPE training throughput on real text, encoding throughput through
 * @huggingface/tokenizers, and the load time of a tokenizer.json. The baseline is the pass every trainer and
 * encoder has to make anyway: splitting the same corpus into words with the pre-tokenizer regex and counting
 * them, measured in the same run.
 *
 * The corpus is real text found on this machine: the Markdown and .d.ts files of node_modules, read in
 * sorted order (4 MB, 1 MB with --quick). `T1LAB_HF_TOKENIZER` adds the load time of a large vocabulary
 * (e.g. Qwen3's 151k-token tokenizer.json).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTokenizer, loadTokenizerFile, splitWords, trainBpe } from '../../native/model/tokenizer/index';
import { median, type Bench } from './reporter';

const NODE_MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));

/** Text files under `dir` in sorted order until `limit` bytes: a mix of prose and code. */
function realCorpus(dir: string, limit: number): string[] {
  const docs: string[] = [];
  let total = 0;
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (total >= limit) return;
      const p = join(d, name);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(p);
      else if (/\.(md|d\.ts|txt)$/.test(name) && st.size < 200_000) {
        const text = readFileSync(p, 'utf8');
        docs.push(text);
        total += Buffer.byteLength(text);
      }
    }
  };
  walk(dir);
  return docs;
}

function time<T>(f: () => T): [T, number] {
  const t0 = performance.now();
  const result = f();
  return [result, performance.now() - t0];
}

const bench: Bench = {
  name: 'tokenizer',
  about: 'issue 6: BPE training and encoding throughput, tokenizer.json load time',
  async run(report, { quick }) {
    const docs = realCorpus(NODE_MODULES, quick ? 1e6 : 4e6);
    const mb = docs.reduce((n, d) => n + Buffer.byteLength(d), 0) / 1e6;
    const vocabSize = 8192;
    const reps = quick ? 1 : 3;
    report.note(
      `corpus: ${mb.toFixed(2)} MB of .md/.d.ts text from node_modules in ${docs.length} files; vocabulary ${vocabSize}`,
    );

    const countMs = median(
      Array.from(
        { length: reps },
        () =>
          time(() => {
            const counts = new Map<string, number>();
            for (const d of docs) for (const w of splitWords(d)) counts.set(w, (counts.get(w) ?? 0) + 1);
            return counts.size;
          })[1],
      ),
    );
    const baseline = { name: 'word split + count pass', value: countMs / 1000 };
    const runs = Array.from({ length: reps }, () => time(() => trainBpe({ corpus: docs, vocabSize })));
    const trained = runs[0]![0];
    const trainMs = median(runs.map((r) => r[1]));
    report.note(
      `trained: ${trained.stats.merges} merges, ${trained.stats.distinctWords} distinct words of ${trained.stats.words}, stopped by ${trained.stats.stoppedBy}`,
    );
    const ratio = trainMs / countMs;
    report.figure({
      name: 'BPE training time',
      value: trainMs / 1000,
      unit: 's',
      baseline,
      ratio,
      goal: '<= 5x the word-count pass',
      met: ratio <= 5,
    });
    report.figure({
      name: 'BPE training throughput',
      value: mb / (trainMs / 1000),
      unit: 'MB/s',
      goal: '>= 0.5 MB/s (a few MB in seconds)',
      met: mb / (trainMs / 1000) >= 0.5,
    });

    const [tok, loadMs] = time(() => loadTokenizer(trained.json));
    const [, parseMs] = time(() => JSON.parse(trained.json));
    report.figure({
      name: `load tokenizer.json (${vocabSize} tokens)`,
      value: loadMs,
      unit: 'ms',
      baseline: { name: 'JSON.parse of it', value: parseMs },
      ratio: loadMs / parseMs,
    });

    const sample = docs.slice(0, Math.max(1, Math.floor(docs.length / (quick ? 4 : 8))));
    const sampleMb = sample.reduce((n, d) => n + Buffer.byteLength(d), 0) / 1e6;
    const [ids, encodeMs] = time(() => sample.reduce((n, d) => n + tok.encode(d).length, 0));
    const [, sampleCountMs] = time(() => sample.reduce((n, d) => n + splitWords(d).length, 0));
    report.figure({
      name: 'encode throughput (@huggingface/tokenizers)',
      value: sampleMb / (encodeMs / 1000),
      unit: 'MB/s',
      baseline: { name: 'word split pass', value: sampleMb / (sampleCountMs / 1000) },
      ratio: sampleCountMs / encodeMs,
    });
    report.note(
      `encoded ${sampleMb.toFixed(2)} MB to ${ids} tokens: ${((sampleMb * 1e6) / ids).toFixed(2)} bytes per token`,
    );

    const external = process.env.T1LAB_HF_TOKENIZER;
    if (external) {
      const text = readFileSync(external, 'utf8');
      const [, extParse] = time(() => JSON.parse(text));
      const [ext, extLoad] = time(() => loadTokenizerFile(external));
      report.figure({
        name: `load ${external.split('/').slice(-3).join('/')} (${ext.vocabSize} tokens)`,
        value: extLoad,
        unit: 'ms',
        baseline: { name: 'JSON.parse of it', value: extParse },
        ratio: extLoad / extParse,
      });
    }
  },
};

export default bench;
