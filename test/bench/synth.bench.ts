/**
 * Issue 11's scale: synthesizing 15,000 tasks (generate, validate as pack lines, hash, write) against
 * loading the same pack back (JSON parse, schema, build tasks), measured in the same run; the distinct
 * counts of the corpus; and the overlap measure against an 89-task suite against signing the corpora.
 */
import { join } from 'node:path';
import { ALL_FAMILIES } from '../../tasks/families';
import { readPack, type Task } from '../../electron/lab/tasks';
import { chooseFamilies } from '../../electron/lab/tasks/synth/generate';
import { measureOverlap, taskSignature } from '../../electron/lab/tasks/synth/overlap';
import { runSynth } from '../../electron/lab/tasks/synth/run-synth';
import { makeTempDir } from '../helpers/tmp';
import type { Bench } from './reporter';

const bench: Bench = {
  name: 'synth',
  about: 'issue 11: synthesizing 15,000 tasks, distinctness, overlap measurement',
  async run(report, { quick }) {
    const tmp = makeTempDir('t1lab-bench-synth-');
    try {
      const count = quick ? 3000 : 15000;
      const out = join(tmp.path, 'train.jsonl');
      const summary = await runSynth({
        out,
        count,
        seed: 1,
        split: 'train',
        families: chooseFamilies(ALL_FAMILIES, null, 'train'),
      });
      const started = performance.now();
      const tasks: Task[] = [];
      for await (const e of readPack(out)) if (e.task) tasks.push(e.task);
      const load = performance.now() - started;
      report.figure({
        name: `synth ${count} tasks (${Object.keys(summary.families).length} families)`,
        value: summary.durationMs / 1000,
        unit: 's',
        baseline: { name: 'loading the same pack', value: load / 1000 },
        ratio: summary.durationMs / load,
        goal: '<= 4x loading it (15,000 under a minute here)',
        met: summary.durationMs / load <= 4,
      });
      report.note(
        `distinct: ${summary.distinct.tasks} tasks, ${summary.distinct.instructions} instructions, ${summary.distinct.solutions} solutions, ${summary.distinct.fileTrees} file trees of ${summary.count}`,
      );
      report.note(
        `categories: ${JSON.stringify(summary.categories)}; difficulties: ${JSON.stringify(summary.difficulties)}`,
      );

      const suite = tasks.slice(0, 89);
      const signStart = performance.now();
      const sigs = tasks.map(taskSignature);
      const sign = performance.now() - signStart;
      const cmpStart = performance.now();
      measureOverlap(sigs, sigs.slice(0, suite.length));
      const cmp = performance.now() - cmpStart;
      report.figure({
        name: `overlap ${tasks.length} x ${suite.length} pairs, 3 kinds`,
        value: cmp / 1000,
        unit: 's',
        baseline: { name: 'signing the corpus', value: sign / 1000 },
        ratio: cmp / sign,
        goal: '<= 2x signing',
        met: cmp / sign <= 2,
      });
    } finally {
      tmp.remove();
    }
  },
};

export default bench;
