/**
 * `t1lab tasks feasible --suite S --checkpoint C --max-turns T --max-tokens N [--json]`: how many tasks of a
 * suite the oracle itself can finish at a budget of T turns x N tokens per turn, in the checkpoint's
 * tokenizer and chat template (lab/runs/feasibility.ts says exactly what counts). Static: nothing runs.
 * `--json` prints `{tasks, feasible, share, byFamily, cutCalls}` plus the budget, the reasons, call and
 * command percentiles and the per-task detail.
 */
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { formatRate } from '../../domain/rates';
import { checkpointOraclePolicy } from '../../lab/runs/checkpoint-oracle';
import { measureFeasibility, type FeasibilityReport } from '../../lab/runs/feasibility';
import { loadTaskSource } from '../../lab/tasks';
import { UsageError, WorkFailed } from '../errors';
import { printJson, table, type Io } from '../output';
import { positiveInt } from './policy-options';

export function formatFeasibility(r: FeasibilityReport, suite: string): string {
  const { maxTurns, maxTokens, contextWindow, promptBudget } = r.budget;
  const rows = [
    ['family', 'tasks', 'feasible', 'share'],
    ...Object.entries(r.byFamily).map(([f, g]) => [f, g.tasks, g.feasible, formatRate(g.share)]),
  ];
  return [
    `${suite}: ${r.feasible} of ${r.tasks} tasks feasible for the oracle (${formatRate(r.share)}) at ${maxTurns} turns x ${maxTokens} tokens`,
    `not feasible: ${r.reasons.turns} need more turns, ${r.reasons.tokens} have a longer call, ${r.reasons.prompt} have a first prompt over ${promptBudget} tokens (window ${contextWindow}), ${r.reasons['no-oracle']} have no oracle`,
    `oracle calls: ${r.cutCalls.count} of ${r.cutCalls.calls} longer than ${maxTokens} tokens (${formatRate(r.cutCalls.share)}); tokens per call median ${r.callTokens.median}, p90 ${r.callTokens.p90}, max ${r.callTokens.max}; commands per task median ${r.commands.median}, p90 ${r.commands.p90}, max ${r.commands.max}`,
    '',
    table(rows),
  ].join('\n');
}

export function registerFeasible(tasks: Command, io: Io): void {
  tasks
    .command('feasible')
    .description(
      "how many tasks of a suite the oracle itself can finish within a turn and per-turn token budget, in a checkpoint's tokenizer (static: nothing runs)",
    )
    .requiredOption(
      '--suite <path>',
      'the tasks: a task folder, a folder of tasks, or a pack (.jsonl), as for t1lab eval',
    )
    .requiredOption(
      '--checkpoint <dir>',
      'the checkpoint whose tokenizer, chat template and window count (a t1-moe checkpoint folder)',
    )
    .option('--max-turns <n>', 'turn limit per episode, as t1lab eval --max-turns (default 300)')
    .option(
      '--max-tokens <n>',
      'completion tokens per turn, as t1lab eval --max-tokens (default: min(1024, window / 8); at most window / 2)',
    )
    .option(
      '--agent-timeout <sec>',
      "the agent's time budget the oracle writes into each call (default: each task's [agent].timeout_sec)",
    )
    .option(
      '--keep-preamble',
      "count the solution's leading set -... / cd /app lines as calls of their own, as tasks sft-data --keep-preamble trains them (default: left out, as SFT data leaves them out)",
    )
    .option(
      '--json',
      'print JSON: {tasks, feasible, share, byFamily, cutCalls, budget, reasons, callTokens, commands, invalid, perTask}',
    )
    .action(
      async (o: {
        suite: string;
        checkpoint: string;
        maxTurns?: string;
        maxTokens?: string;
        agentTimeout?: string;
        keepPreamble?: boolean;
        json?: boolean;
      }) => {
        const maxTurns = positiveInt('--max-turns', o.maxTurns) ?? 300;
        const maxTokens = positiveInt('--max-tokens', o.maxTokens);
        const agentTimeoutSec = positiveInt('--agent-timeout', o.agentTimeout);
        const policy = checkpointOraclePolicy(o.checkpoint, { maxTokens });
        if (maxTokens !== undefined && policy.maxCompletionTokens < maxTokens) {
          io.err(
            `t1lab: --max-tokens ${maxTokens} is more than half the window (${policy.contextWindow}); onnx: replies get ${policy.maxCompletionTokens}, and that is what is measured\n`,
          );
        }
        const source = await loadTaskSource(o.suite);
        for (const bad of source.invalid) io.err(`t1lab: skipped invalid task '${bad.id}'\n`);
        if (source.tasks.length === 0) throw new UsageError(`--suite ${o.suite}: no valid task found`);
        const report = await measureFeasibility(policy, source.tasks, {
          maxTurns,
          keepPreamble: o.keepPreamble === true,
          ...(agentTimeoutSec ? { agentTimeoutSec } : {}),
        });
        if (!report) throw new WorkFailed('the checkpoint is not a token-level policy');
        if (o.json)
          printJson(io, {
            ...report,
            suite: resolve(o.suite),
            checkpoint: resolve(o.checkpoint),
            invalid: source.invalid.length,
          });
        else io.out(formatFeasibility(report, o.suite));
      },
    );
}
