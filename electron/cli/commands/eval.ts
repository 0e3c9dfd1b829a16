/**
 * `t1lab eval --suite PATH --policy P [--attempts K] [--concurrency C] [--only IDS] [--out DIR] [--resume DIR] [--json]`:
 * an evaluation into a run folder, with a progress bar on stderr. `--json` prints exactly the issue's shape.
 * Ctrl-C stops it gracefully (finished episodes stay; `--resume DIR` continues); a kill loses nothing either.
 */
import type { Command } from 'commander';
import { POLICY_SPECS } from '../../agent/policy';
import type { AvgAtK, EvalSummary, RunProgress } from '../../domain/runs';
import {
  startEvaluation,
  resumeEvaluation,
  type EvalEnv,
  type EvalHooks,
  type Evaluation,
} from '../../lab/runs/evaluate';
import { onnxPolicyFactory } from '../../lab/models/onnx-policy';
import { policyWorker } from '../../lab/models/policy-engine';
import { labDataDir } from '../../lab/paths';
import { WorkerRegistry } from '../../lab/worker-registry';
import { forkLauncher } from '../../processes/launcher';
import { UsageError, WorkFailed } from '../errors';
import { addBackendOptions, backendSettings, HOSTS_OPTION, withHosts, type BackendOptions } from './backend-options';
import { printJson, progressBar, table, type Io } from '../output';
import {
  addSharedOptions,
  harnessSettings,
  onInterrupt,
  policySettings,
  positiveInt,
  runSeed,
  type SharedOptions,
} from './policy-options';
import { formatRate } from '../../domain/rates';
import { EVAL_DEFAULTS } from '../../domain/eval-defaults';

interface EvalOptions extends SharedOptions, BackendOptions {
  suite?: string;
  attempts?: string;
  concurrency?: string;
  out?: string;
  resume?: string;
  episodeDeadline?: string;
  only?: string;
}

/** `--only a,b`: the ids, without blanks. */
function taskIds(list: string): string[] {
  const ids = list
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  if (!ids.length) throw new UsageError(`--only: '${list}' names no task id`);
  return ids;
}

/** avg@K of success and of dense reward, with their task-bootstrap intervals (one line). */
export function formatAvgAtK(a: AvgAtK): string {
  const uneven = a.minAttempts < a.k ? ` (some tasks have only ${a.minAttempts} attempts)` : '';
  return `avg@${a.k} ${formatRate(a.value)} (task bootstrap [${formatRate(a.ci95[0])}, ${formatRate(a.ci95[1])}]) · dense reward avg@${a.k} ${a.dense.value.toFixed(2)} [${a.dense.ci95[0].toFixed(2)}, ${a.dense.ci95[1].toFixed(2)}]${uneven}`;
}

export function formatSummary(s: EvalSummary): string {
  const lines = [
    `${s.suite} with ${s.policy}: ${s.tasks} tasks, ${s.episodes} episodes`,
    `resolved ${formatRate(s.resolvedRate)} (95% Wilson [${formatRate(s.ci95[0])}, ${formatRate(s.ci95[1])}]${s.ci95Bootstrap ? `; task-clustered bootstrap [${formatRate(s.ci95Bootstrap[0])}, ${formatRate(s.ci95Bootstrap[1])}]` : ''})`,
    `mean reward ${s.meanReward.toFixed(2)} · ${Object.entries(s.passAtK)
      .map(([k, v]) => `pass@${k} ${formatRate(v)}`)
      .join(' · ')}`,
    ...(s.avgAtK && s.avgAtK.k > 1 ? [formatAvgAtK(s.avgAtK)] : []),
    `errors: ${Object.entries(s.errors)
      .map(([k, n]) => (k === 'infrastructure' ? `infrastructure ${n} (left out of the statistics)` : `${k} ${n}`))
      .join(', ')} · ${(s.durationMs / 1000).toFixed(1)} s`,
    ...(s.skipped ?? []).map((t) => `not run: ${t.task}: ${t.reason.split('\n')[0]}`),
    ...(s.fidelity ?? []).map((f) => `fidelity caveat: ${f}`),
    ...(s.rerun ? [`re-ran ${s.rerun} episode(s) that infrastructure errors had ended`] : []),
    '',
  ];
  const rows = (title: string, groups: EvalSummary['byCategory']) => [
    [title, 'tasks', 'resolved'],
    ...Object.entries(groups).map(([k, g]) => [k, g.tasks, formatRate(g.resolvedRate)]),
  ];
  return `${lines.join('\n')}\n${table(rows('category', s.byCategory))}\n${table(rows('difficulty', s.byDifficulty))}\nrun folder: ${s.runDir}\n`;
}

export function registerEval(program: Command, io: Io): void {
  addSharedOptions(
    addBackendOptions(program.command('eval'))
      .description('evaluate a policy on a suite of tasks (a task folder, a folder of tasks, or a pack)')
      .option('--suite <path>', 'the tasks to evaluate on')
      .option('--attempts <k>', `attempts per task (default ${EVAL_DEFAULTS.attempts})`)
      .option('--only <ids>', 'only these task ids of the suite, comma-separated')
      .option('--concurrency <c>', 'episodes at once (default: the number of cores)')
      .option('--out <dir>', 'run folder (default: a new folder under the lab data dir runs/)')
      .option(
        '--resume <dir>',
        'continue a killed or cancelled run folder; finished episodes are not run again, those an infrastructure error ended are',
      )
      .option(
        '--episode-deadline <sec>',
        'hard limit per episode; stragglers are cut there and counted (default: agent + verifier timeouts + 120 s)',
      )
      .option(...HOSTS_OPTION),
  ).action(async (opts: EvalOptions) => {
    const log = (m: string) => io.err(`t1lab: ${m}\n`);
    let bar: ReturnType<typeof progressBar> | null = null;
    const hooks = {
      log,
      progress: (p: RunProgress) => {
        bar ??= progressBar(io, 'eval', p.total);
        bar.update(
          p.done,
          p.running
            .map((r) => r.key)
            .join(' ')
            .slice(0, 60),
        );
      },
      stop: () => bar?.stop(),
    };
    // The onnx: policy runs in a policy worker, started only if such a policy is used.
    const workers = new WorkerRegistry(forkLauncher);
    // A resume keeps the run's backend and images unless they are given again; --hosts alone only moves its container episodes.
    const sameBackend = opts.resume && opts.backend === 'auto' && !opts.baseImage && !opts.net;
    const env = {
      dataDir: labDataDir(),
      onnx: onnxPolicyFactory(policyWorker(workers)),
      containers: sameBackend ? undefined : withHosts(backendSettings(opts), opts.hosts),
    };
    try {
      await evaluate(opts, io, env, hooks, log);
    } finally {
      await workers.stopAll();
    }
  });
}

async function evaluate(
  opts: EvalOptions,
  io: Io,
  env: EvalEnv,
  hooks: EvalHooks & { stop(): void },
  log: (m: string) => void,
): Promise<void> {
  let evaluation: Evaluation;
  if (opts.resume) {
    if (opts.suite || opts.policy)
      log('--resume continues the run as it was configured; --suite and --policy are taken from its run.json');
    evaluation = await resumeEvaluation(
      opts.resume,
      env,
      hooks,
      opts.hosts !== undefined ? { hosts: withHosts(backendSettings(opts), opts.hosts).hosts } : {},
    );
  } else {
    if (!opts.suite) throw new UsageError('--suite PATH is required (or --resume DIR)');
    if (!opts.policy) throw new UsageError(`--policy is required: ${POLICY_SPECS}`);
    evaluation = await startEvaluation(
      {
        suite: opts.suite,
        policy: opts.policy,
        policySettings: policySettings(opts),
        harness: harnessSettings(opts),
        attempts: positiveInt('--attempts', opts.attempts) ?? EVAL_DEFAULTS.attempts,
        concurrency: positiveInt('--concurrency', opts.concurrency),
        episodeDeadlineSec: positiveInt('--episode-deadline', opts.episodeDeadline),
        seed: runSeed(opts),
        out: opts.out,
        ...(opts.only ? { only: taskIds(opts.only) } : {}),
      },
      env,
      hooks,
    );
  }
  const unhook = onInterrupt(() => {
    log('stopping: finishing nothing new, recording what is done (Ctrl-C again is not needed)');
    evaluation.cancel();
  });
  try {
    const result = await evaluation.done;
    hooks.stop();
    if (opts.json) printJson(io, result.summary);
    else io.out(formatSummary(result.summary));
    if (
      result.cancelled ||
      result.summary.episodes < evaluation.manifest.config.tasks.length * evaluation.manifest.config.attempts
    ) {
      log(`the run is incomplete: continue it with  t1lab eval --resume ${evaluation.runDir}`);
      // Exit status 1 (process.exitCode would be overwritten by runCli's 0).
      throw new WorkFailed('');
    }
  } finally {
    unhook();
  }
}
