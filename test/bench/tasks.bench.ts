/**
 * Issue 4's costs, each as a ratio against a baseline measured in the same run:
 * - the verifier (snapshot, pristine /tests, fresh logs, report parsing) against running the same checks
 *   in a bare sandbox on the workspace: what tamper-proofing costs per episode;
 * - loading a pack (JSON parse + schema + path checks + building tasks) against JSON.parse alone: what
 *   validation costs when a corpus holds thousands of tasks;
 * - a whole audit of one task against one verifier run: the price of running the oracle twice and a no-op.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  auditTask,
  defaultSandbox,
  loadTaskFolder,
  packLineOf,
  phaseSpec,
  prepareWorkspace,
  readPack,
  runOracle,
  runVerifier,
  writePack,
  type Task,
} from '../../electron/lab/tasks';
import { REPO_ROOT } from '../helpers/cli';
import { makeTempDir } from '../helpers/tmp';
import { median, type Bench } from './reporter';

async function timeIt(times: number, fn: () => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  return median(samples);
}

async function example(id: string): Promise<Task> {
  const loaded = await loadTaskFolder(join(REPO_ROOT, 'tasks/examples', id));
  if (!loaded.task) throw new Error(`example ${id} did not load`);
  return loaded.task;
}

const bench: Bench = {
  name: 'tasks',
  about: 'issue 4: verifier overhead, pack loading, audit cost',
  async run(report, { quick }) {
    const tmp = makeTempDir('t1lab-bench-tasks-');
    try {
      const reps = quick ? 3 : 7;
      const sandbox = defaultSandbox();

      // Inline assertions: the verifier against the same shell checks run in one bare sandbox.
      const inline = await example('count-log-levels');
      const ws1 = join(tmp.path, 'inline');
      await prepareWorkspace(inline, ws1);
      await runOracle(inline, ws1);
      const checks = inline.verifier.assertions.map((a) => a.run).join(' && ');
      const bare = await timeIt(reps, () => sandbox.run(phaseSpec(inline, ws1, 60), ['bash', '-c', checks]));
      const verify = await timeIt(reps, () => runVerifier(inline, ws1));
      report.figure({
        name: 'verify count-log-levels (4 inline assertions)',
        value: verify,
        unit: 'ms',
        baseline: { name: 'the same checks in one bare sandbox', value: bare },
        ratio: verify / bare,
        goal: '<= 8x (one sandbox per assertion)',
        met: verify / bare <= 8,
      });

      // pytest: the verifier against the same pytest command in a bare sandbox (tests mounted by hand).
      const py = await example('csv-sales-report');
      const ws2 = join(tmp.path, 'pytest');
      await prepareWorkspace(py, ws2);
      await runOracle(py, ws2);
      const testsDir = join(tmp.path, 'tests');
      mkdirSync(testsDir);
      writeFileSync(
        join(testsDir, 'test_outputs.py'),
        await readFile(join(REPO_ROOT, 'tasks/examples/csv-sales-report/tests/test_outputs.py')),
      );
      const spec = phaseSpec(py, ws2, 60, { mounts: [{ host: testsDir, sandbox: '/tests', readOnly: true }] });
      const barePy = await timeIt(reps, () =>
        sandbox.run(spec, [
          '/usr/bin/python3',
          '-I',
          '-m',
          'pytest',
          '-q',
          '-p',
          'no:cacheprovider',
          '/tests/test_outputs.py',
        ]),
      );
      const verifyPy = await timeIt(reps, () => runVerifier(py, ws2));
      report.figure({
        name: 'verify csv-sales-report (pytest, JUnit)',
        value: verifyPy,
        unit: 'ms',
        baseline: { name: 'the same pytest in a bare sandbox', value: barePy },
        ratio: verifyPy / barePy,
        goal: '<= 1.5x',
        met: verifyPy / barePy <= 1.5,
      });

      // Pack loading: thousands of small tasks.
      const count = quick ? 500 : 3000;
      const pack = join(tmp.path, 'corpus.jsonl');
      const template = inline.files;
      await writePack(
        pack,
        Array.from({ length: count }, (_, i) => ({ id: `synth-${i}`, files: template })),
      );
      const text = await readFile(pack, 'utf8');
      const parseOnly = await timeIt(3, async () => {
        for (const line of text.split('\n')) if (line) JSON.parse(line);
      });
      const load = await timeIt(3, async () => {
        let n = 0;
        for await (const e of readPack(pack)) if (e.task) n++;
        if (n !== count) throw new Error(`loaded ${n} of ${count}`);
      });
      report.figure({
        name: `load a pack of ${count} tasks`,
        value: (count / load) * 1000,
        unit: 'tasks/s',
        baseline: { name: 'JSON.parse of the same lines', value: (count / parseOnly) * 1000 },
        ratio: load / parseOnly,
        goal: 'validation <= 20x the bare parse',
        met: load / parseOnly <= 20,
      });
      report.note(`pack line size: ${Math.round(packLineOf({ id: 'x', files: template }).length / 1024)} KiB per task`);

      // A whole audit against one verifier run.
      const audit = await timeIt(quick ? 1 : 3, () => auditTask(inline));
      report.figure({
        name: 'audit count-log-levels (oracle, no-op, oracle again)',
        value: audit,
        unit: 'ms',
        baseline: { name: 'one verifier run', value: verify },
        ratio: audit / verify,
        goal: '<= 6x (three episodes)',
        met: audit / verify <= 6,
      });
    } finally {
      tmp.remove();
    }
  },
};

export default bench;
