/**
 * Checkpoint figures (issue 6): save (atomic, fsync'd, hashed while writing) and load (every check, every
 * hash, weights to float32) of the micro preset (~12.7M parameters, ~51 MB), against writing and reading
 * the same bytes raw in the same run. Inspect (what the Models page lists) is header-only.
 */
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { inspectCheckpoint, loadCheckpoint, saveCheckpoint } from '../../native/model/checkpoint/index';
import { PRESETS } from '../../native/model/config';
import { initParameters } from '../../native/model/init';
import { testTokenizer } from '../helpers/checkpoint';
import { makeTempDir } from '../helpers/tmp';
import { median, type Bench } from './reporter';

function time<T>(f: () => T): [T, number] {
  const t0 = performance.now();
  const result = f();
  return [result, performance.now() - t0];
}

const bench: Bench = {
  name: 'checkpoint',
  about: 'issue 6: checkpoint save/load/inspect time of the micro preset vs raw file I/O',
  async run(report, { quick }) {
    const tmp = makeTempDir('t1lab-bench-ckpt-');
    try {
      const config = PRESETS[quick ? 'nano' : 'micro'];
      const parameters = initParameters(config, 1);
      const tokenizer = testTokenizer();
      const reps = quick ? 1 : 3;
      const saves: number[] = [];
      const loads: number[] = [];
      const raws: number[] = [];
      const rawReads: number[] = [];
      let bytes = 0;
      for (let i = 0; i < reps; i++) {
        const dir = join(tmp.path, `ck-${i}`);
        const [saved, saveMs] = time(() =>
          saveCheckpoint(dir, { config, tokenizer: tokenizer.json, parameters, labVersion: 'bench' }),
        );
        saves.push(saveMs);
        bytes = Object.values(saved.manifest.files).reduce((n, f) => n + f.bytes, 0);
        const modelBytes = readFileSync(join(dir, 'model.safetensors'));
        raws.push(
          time(() => {
            const fd = openSync(join(tmp.path, `raw-${i}`), 'w');
            writeSync(fd, modelBytes);
            fsyncSync(fd);
            closeSync(fd);
          })[1],
        );
        rawReads.push(time(() => readFileSync(join(dir, 'model.safetensors')))[1]);
        loads.push(time(() => loadCheckpoint(dir))[1]);
      }
      const mb = bytes / 1e6;
      report.note(`${quick ? 'nano' : 'micro'} preset: ${parameters.size} tensors, ${mb.toFixed(1)} MB on disk`);
      const save = median(saves);
      const raw = median(raws);
      report.figure({
        name: 'save checkpoint (validate, write, fsync, sha256, rename)',
        value: save,
        unit: 'ms',
        baseline: { name: 'raw write+fsync of model.safetensors', value: raw },
        ratio: save / raw,
        goal: '<= 4x raw write',
        met: save / raw <= 4,
      });
      const load = median(loads);
      const rawRead = median(rawReads);
      report.figure({
        name: 'load checkpoint (all checks + sha256 + float32)',
        value: load,
        unit: 'ms',
        baseline: { name: 'raw read of model.safetensors', value: rawRead },
        ratio: load / rawRead,
        goal: '<= 10x raw read',
        met: load / rawRead <= 10,
      });
      const [, inspectMs] = time(() => inspectCheckpoint(join(tmp.path, 'ck-0'), { tokenizer: false }));
      report.figure({
        name: 'inspect (manifest, config, headers; no weights)',
        value: inspectMs,
        unit: 'ms',
        baseline: { name: 'load', value: load },
        ratio: inspectMs / load,
      });
    } finally {
      tmp.remove();
    }
  },
};

export default bench;
