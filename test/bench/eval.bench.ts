/**
 * Oracle evaluation throughput against a bare baseline (issue 25): `t1lab eval --suite tasks/examples
 * --policy oracle --concurrency 2` (in process, the same startEvaluation the command runs) against the
 * same commands run without the harness, in one sandbox per task, two tasks at a time: the task's files
 * written, then in a single bubblewrap sandbox its set-up script, its oracle solution and its verifier's
 * commands (test script, the lab's pytest run, each inline assertion) one after the other. What the
 * harness adds on top (a recorded interactive shell, the marker protocol, the monitor, the verifier's own
 * sandboxes on a snapshot, reports, the episode folder) shows as the ratio of the two throughputs; a
 * regression that makes episodes wait shows there first. Rounds alternate (harness, bare, harness, ...)
 * because the machine's load drifts within a run.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEvaluation } from '../../electron/lab/runs/evaluate';
import { filesUnder, loadTaskSource, solutionScript, TASK_PATHS, type Task } from '../../electron/lab/tasks';
import { phaseRun } from '../../electron/lab/tasks/sandbox-spec';
import {
  inSandboxTests,
  labPytestArgs,
  SYSTEM_PYTHON,
  verifierDirs,
  verifierEnv,
  verifierMounts,
  writeVerifierInputs,
} from '../../electron/lab/tasks/verifier-setup';
import { writeFiles } from '../../electron/lab/tasks/write-folder';
import { BubblewrapBackend } from '../../native/sandbox';
import type { Bench } from './reporter';

const EXAMPLES = fileURLToPath(new URL('../../tasks/examples', import.meta.url));
const CONCURRENCY = 2;
const ROUNDS = 2;

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The commands the harness runs for this task (set-up, oracle, verifier), as one bash script. */
function bareScript(task: Task): string {
  const lines = ['set -u', 'fail=0'];
  if (task.environment.setup)
    lines.push('(cd "$T1_WORKDIR" && bash --noprofile --norc /environment/setup.sh) >/dev/null || fail=1');
  lines.push('(cd "$T1_START" && bash --noprofile --norc /solution/solve.sh) >/dev/null 2>&1 || true');
  const v = task.verifier;
  if (v.testScript && v.runTestScript)
    lines.push(`bash --noprofile --norc ${quote(inSandboxTests(v.testScript))} >/dev/null 2>&1 || fail=1`);
  if (v.pytest)
    lines.push(`${SYSTEM_PYTHON} -I -m pytest ${labPytestArgs(task).map(quote).join(' ')} >/dev/null 2>&1 || fail=1`);
  for (const a of v.assertions) lines.push(`bash --noprofile --norc -c ${quote(a.run)} >/dev/null 2>&1 || fail=1`);
  lines.push('exit $fail');
  return lines.join('\n');
}

/** One task's commands in one sandbox; true when its verifier's commands passed. */
async function bareTask(task: Task, root: string, sandbox: BubblewrapBackend): Promise<boolean> {
  const dir = mkdtempSync(join(root, `${task.id}-`));
  const workspace = join(dir, 'workspace');
  const environment = join(dir, 'environment');
  const solution = join(dir, 'solution');
  const dirs = verifierDirs(join(dir, 'verify'));
  mkdirSync(workspace);
  await writeFiles(workspace, filesUnder(task, TASK_PATHS.filesDir));
  await writeFiles(
    environment,
    filesUnder(task, TASK_PATHS.environmentDir).filter((f) => !f.path.startsWith('files/')),
  );
  const files =
    task.solution?.kind === 'script' && task.solution.path === TASK_PATHS.solve ? filesUnder(task, 'solution') : [];
  if (!files.some((f) => f.path === 'solve.sh'))
    files.push({ path: 'solve.sh', data: new TextEncoder().encode(solutionScript(task) ?? 'true'), executable: true });
  await writeFiles(solution, files);
  mkdirSync(dirs.root, { recursive: true });
  await writeVerifierInputs(task, dirs);
  const mounts = [
    ...verifierMounts(dirs),
    { host: environment, sandbox: '/environment', readOnly: true },
    { host: solution, sandbox: '/solution', readOnly: true },
  ];
  const wall = task.agent.timeoutSec + task.verifier.timeoutSec;
  const { spec } = await phaseRun(
    task,
    workspace,
    wall,
    { mounts, env: { ...verifierEnv(task), ...task.solutionEnv } },
    { sandbox },
  );
  const workdir = spec.workdir ?? '/app';
  spec.env = { ...spec.env, T1_WORKDIR: workdir, T1_START: spec.cwd ?? workdir };
  delete spec.cwd;
  const run = await sandbox.run(spec, ['bash', '--noprofile', '--norc', '-c', bareScript(task)]);
  rmSync(dir, { recursive: true, force: true });
  return run.exitCode === 0;
}

async function bare(tasks: Task[], root: string): Promise<{ seconds: number; passed: number }> {
  const sandbox = new BubblewrapBackend();
  const queue = [...tasks];
  let passed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let task = queue.shift(); task; task = queue.shift()) if (await bareTask(task, root, sandbox)) passed++;
    }),
  );
  return { seconds: (performance.now() - started) / 1000, passed };
}

async function harness(ids: string[], root: string, name: string): Promise<{ seconds: number; resolvedRate: number }> {
  const started = performance.now();
  const evaluation = await startEvaluation(
    { suite: EXAMPLES, policy: 'oracle', concurrency: CONCURRENCY, only: ids, out: join(root, name) },
    { dataDir: join(root, 'data') },
  );
  const { summary } = await evaluation.done;
  return { seconds: (performance.now() - started) / 1000, resolvedRate: summary.resolvedRate };
}

const bench: Bench = {
  name: 'eval',
  about: 'issue 25: oracle eval of tasks/examples (concurrency 2) against the same commands without the harness',
  async run(report, { quick }) {
    const root = mkdtempSync(join(tmpdir(), 't1lab-bench-eval-'));
    try {
      const all = (await loadTaskSource(EXAMPLES)).tasks;
      const tasks = quick ? all.slice(0, 6) : all;
      const ids = tasks.map((t) => t.id);
      const rounds = { harness: [] as { seconds: number }[], bare: [] as { seconds: number }[] };
      // One untimed episode first: module loading and the sandbox layer's one-time set-up are not the episode's.
      await harness(ids.slice(0, 1), root, 'warm-up');
      for (let round = 0; round < ROUNDS; round++) {
        const h = await harness(ids, root, `harness-${round}`);
        if (h.resolvedRate !== 1)
          report.note(`harness round ${round}: resolved ${(h.resolvedRate * 100).toFixed(1)}% (expected 100%)`);
        rounds.harness.push(h);
        const b = await bare(tasks, root);
        if (b.passed !== tasks.length)
          report.note(`bare round ${round}: ${b.passed}/${tasks.length} tasks passed their verifier's commands`);
        rounds.bare.push(b);
      }
      const perMin = (rs: { seconds: number }[]) =>
        (rs.length * tasks.length * 60) / rs.reduce((n, r) => n + r.seconds, 0);
      const harnessRate = perMin(rounds.harness);
      const bareRate = perMin(rounds.bare);
      report.note(
        `${tasks.length} example tasks x ${ROUNDS} rounds each (harness, bare alternating), oracle policy, concurrency ${CONCURRENCY}`,
      );
      report.figure({ name: 'bare commands (one sandbox per task)', value: bareRate, unit: 'tasks/min' });
      report.figure({
        name: 'oracle eval (the harness)',
        value: harnessRate,
        unit: 'tasks/min',
        baseline: { name: 'bare commands', value: bareRate },
        ratio: harnessRate / bareRate,
        goal: '>= 300 tasks/min on a quiet 2-core machine',
        met: harnessRate >= 300,
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
export default bench;
