/**
 * The harness's own cost (issue 5). Two measures, each against a baseline measured in the same run:
 * - per-turn overhead with a zero-latency scripted policy and a trivial command (`true`): the turn's wall
 *   time minus the command's own time in the shell (goal: under 2 ms), as a ratio to that command time;
 *   also with the TITO ledger (a token-level scripted policy), which re-tokenizes the conversation each turn;
 * - oracle evaluation throughput over the example suite, tasks per minute at concurrency 1 and 2 (ratio).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createShellSession } from '../../native/pty';
import { createPolicy } from '../../electron/agent/policy';
import type { Trajectory } from '../../electron/domain/trajectory';
import { startEvaluation } from '../../electron/lab/runs/evaluate';
import { runTaskEpisode } from '../../electron/lab/runs/run-episode';
import { defaultSandbox, loadTaskSource, phaseSpec, type Task } from '../../electron/lab/tasks';
import { trainByteLevelBpe } from '../helpers/bpe';
import { writeTask } from '../helpers/tasks';
import { median, percentile, type Bench } from './reporter';

const EXAMPLES = fileURLToPath(new URL('../../tasks/examples', import.meta.url));

/** Wall time of each turn that ran one command (policy call, parsing, the command, formatting, bookkeeping). */
function turnTimes(t: Trajectory): number[] {
  return t.turns
    .filter((turn) => turn.executions.length === 1)
    .map((turn) => turn.timing.policyMs + turn.timing.envMs + turn.timing.harnessMs);
}

/** The command's own time: `true` run directly in a shell session of the same sandbox, no harness around it. */
async function directRuns(task: Task, root: string, n: number): Promise<number[]> {
  const workspace = join(root, 'direct-workspace');
  mkdirSync(workspace);
  const session = await createShellSession({ backend: defaultSandbox(), spec: phaseSpec(task, workspace, 600) });
  try {
    await session.ready();
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await session.run('true', { timeoutMs: 10_000 });
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    await session.close();
  }
}

const bench: Bench = {
  name: 'harness',
  about:
    'issue 5: per-turn harness overhead (scripted zero-latency policy, trivial command) and oracle eval throughput at concurrency 1 and 2',
  async run(report, { quick }) {
    const root = mkdtempSync(join(tmpdir(), 't1lab-bench-harness-'));
    try {
      const dir = writeTask(join(root, 'suite'), {
        id: 'noop',
        instruction: 'Do nothing.',
        agentTimeoutSec: 600,
        assertions: { always: 'true' },
      });
      const task = (await loadTaskSource(dir)).tasks[0]!;
      const turns = quick ? 60 : 300;
      const script = join(root, 'script.json');
      writeFileSync(script, JSON.stringify({ loop: true, turns: [{ action: { tool: 'bash', command: 'true' } }] }));
      const corpus = [
        '<tool_call>\n{"name": "bash", "arguments": {"command": "true"}}\n</tool_call>',
        '[exit code 0 · 0.01 s]',
      ];
      writeFileSync(join(root, 'tokenizer.json'), JSON.stringify(trainByteLevelBpe(corpus, { merges: 200 })));
      const tokenScript = join(root, 'token-script.json');
      writeFileSync(
        tokenScript,
        JSON.stringify({
          loop: true,
          tokenizer: 'tokenizer.json',
          turns: [{ action: { tool: 'bash', command: 'true' } }],
        }),
      );

      const episode = async (spec: string, maxTurns: number) => {
        const out = join(root, `ep-${spec.length}-${maxTurns}-${Math.random().toString(36).slice(2)}`);
        mkdirSync(out);
        const policy = await createPolicy(spec);
        const { trajectory } = await runTaskEpisode({
          task,
          policy,
          harness: { maxTurns, contextStrategy: 'drop-oldest', observationChars: 10_000 },
          key: 'noop@0',
          attempt: 0,
          seed: 1,
          dir: { abs: out, rel: 'ep' },
        });
        return turnTimes(trajectory);
      };

      await episode(`replay:${script}`, 10); // warm up: module loading, first sandbox
      const direct = median(await directRuns(task, root, turns));
      const plain = await episode(`replay:${script}`, turns);
      const turnMs = median(plain);
      const overheadMs = turnMs - direct;
      report.note(
        `${plain.length} turns of \`true\`: median turn ${turnMs.toFixed(3)} ms (p95 ${percentile(plain, 95).toFixed(3)}), the same command run directly ${direct.toFixed(3)} ms`,
      );
      report.figure({
        name: 'per-turn harness overhead (median)',
        value: overheadMs,
        unit: 'ms',
        baseline: { name: "the command's own time (median)", value: direct },
        ratio: overheadMs / direct,
        goal: '< 2 ms',
        met: overheadMs < 2,
      });
      const ledgerTurns = await episode(`replay:${tokenScript}`, turns);
      const ledgerMs = median(ledgerTurns) - direct;
      report.note(
        `with the TITO ledger (token-level scripted policy): ${ledgerTurns.length} turns, p95 turn ${percentile(ledgerTurns, 95).toFixed(3)} ms`,
      );
      // No goal: the ledger re-checks the whole conversation every turn, so its cost grows with the episode.
      report.figure({
        name: 'per-turn overhead with the TITO ledger (median)',
        value: ledgerMs,
        unit: 'ms',
        baseline: { name: 'without the ledger', value: overheadMs },
        ratio: ledgerMs / overheadMs,
      });

      const examples = (await loadTaskSource(EXAMPLES)).tasks.map((t) => t.id);
      const only = quick ? examples.slice(0, 6) : examples;
      const throughput = async (concurrency: number) => {
        const started = performance.now();
        const evaluation = await startEvaluation(
          { suite: EXAMPLES, policy: 'oracle', concurrency, only, out: join(root, `eval-c${concurrency}`) },
          { dataDir: join(root, 'data') },
        );
        const { summary } = await evaluation.done;
        const minutes = (performance.now() - started) / 60_000;
        if (summary.resolvedRate !== 1)
          report.note(
            `concurrency ${concurrency}: resolved ${(summary.resolvedRate * 100).toFixed(1)}% (expected 100%)`,
          );
        return only.length / minutes;
      };
      const c1 = await throughput(1);
      const c2 = await throughput(2);
      report.note(`${only.length} example tasks, oracle policy`);
      report.figure({ name: 'oracle eval throughput, concurrency 1', value: c1, unit: 'tasks/min' });
      report.figure({
        name: 'oracle eval throughput, concurrency 2',
        value: c2,
        unit: 'tasks/min',
        baseline: { name: 'concurrency 1', value: c1 },
        ratio: c2 / c1,
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};
export default bench;
