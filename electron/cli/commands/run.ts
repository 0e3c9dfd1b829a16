/**
 * `t1lab run TASK --policy P [--max-turns N] [--json]`: one episode of one task, printed turn by turn on
 * stderr. TASK is a task folder, or the id of a task in --suite (default: the built-in examples).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { POLICY_SPECS } from '../../agent/policy';
import type { RunEpisodeSummary } from '../../domain/runs';
import { appRoot } from '../../lab/app-paths';
import { startEvaluation } from '../../lab/runs/evaluate';
import { describeAction } from '../../lab/runs/scheduler';
import { labDataDir } from '../../lab/paths';
import { onnxPolicyFactory } from '../../lab/models/onnx-policy';
import { policyWorker } from '../../lab/models/policy-engine';
import { WorkerRegistry } from '../../lab/worker-registry';
import { forkLauncher } from '../../processes/launcher';
import { UsageError } from '../errors';
import { addBackendOptions, backendSettings, HOSTS_OPTION, withHosts, type BackendOptions } from './backend-options';
import { printJson, type Io } from '../output';
import {
  addSharedOptions,
  harnessSettings,
  onInterrupt,
  policySettings,
  runSeed,
  type SharedOptions,
} from './policy-options';

interface RunOptions extends SharedOptions, BackendOptions {
  suite?: string;
  out?: string;
}

export function registerRun(program: Command, io: Io): void {
  addSharedOptions(
    addBackendOptions(program.command('run'))
      .description('run one episode of one task and show what the agent does')
      .argument('<task>', 'a task folder, or the id of a task in --suite')
      .option('--suite <path>', 'where to find TASK by id (default: the built-in examples)')
      .option('--out <dir>', 'run folder (default: a new folder under the lab data dir runs/)')
      .option(...HOSTS_OPTION),
  ).action(async (taskArg: string, opts: RunOptions) => {
    // The onnx: policy runs in a policy worker, started only if such a policy is used.
    const workers = new WorkerRegistry(forkLauncher);
    try {
      await runOne(taskArg, opts, io, workers);
    } finally {
      await workers.stopAll();
    }
  });
}

async function runOne(taskArg: string, opts: RunOptions, io: Io, workers: WorkerRegistry): Promise<void> {
  if (!opts.policy) throw new UsageError(`--policy is required: ${POLICY_SPECS}`);
  const byPath = existsSync(taskArg);
  const suite = byPath ? taskArg : (opts.suite ?? join(appRoot(), 'tasks', 'examples'));
  const evaluation = await startEvaluation(
    {
      kind: 'run',
      only: byPath ? undefined : [taskArg],
      suite,
      policy: opts.policy,
      policySettings: policySettings(opts),
      harness: harnessSettings(opts),
      attempts: 1,
      concurrency: 1,
      seed: runSeed(opts),
      out: opts.out,
    },
    {
      dataDir: labDataDir(),
      onnx: onnxPolicyFactory(policyWorker(workers)),
      containers: withHosts(backendSettings(opts), opts.hosts),
    },
    {
      log: (m) => io.err(`t1lab: ${m}\n`),
      turn: (_key, turn) =>
        io.err(
          `turn ${turn.index + 1}: ${describeAction(turn) ?? '(nothing)'}${turn.parseError ? ` — did not parse: ${turn.parseError.split('\n')[0]}` : ''}\n`,
        ),
    },
  );
  const unhook = onInterrupt(() => evaluation.cancel());
  try {
    await evaluation.done;
  } finally {
    unhook();
  }
  const record = evaluation.records()[0];
  if (!record) throw new UsageError('the episode was cancelled before it finished');
  const summary: RunEpisodeSummary = {
    task: record.taskId,
    resolved: record.resolved,
    reward: record.reward ?? { dense: 0, fraction: 0, binary: 0 },
    turns: record.turns,
    stopReason: record.stopReason,
    tokens: record.tokens,
    durationMs: record.durationMs,
    runDir: evaluation.runDir,
  };
  if (opts.json) printJson(io, summary);
  else {
    io.out(
      `${summary.task}: ${summary.resolved ? 'resolved' : 'not resolved'} · reward ${summary.reward.dense} (${(summary.reward.fraction * 100).toFixed(0)}%) · ` +
        `${summary.turns} turns · ${summary.stopReason}${record.error ? ` (${record.error.kind}: ${record.error.message})` : ''} · ${(summary.durationMs / 1000).toFixed(1)} s\nrun folder: ${summary.runDir}\n`,
    );
  }
}
