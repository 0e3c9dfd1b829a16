/**
 * Can the oracle itself finish a suite's tasks at a budget of T turns x N tokens per turn, in a policy's
 * tokenizer and chat template? The oracle's transcript is known without running anything: its tool calls
 * are the reference solution's commands, one per turn, and the token-level oracle (the one SFT data is
 * made from) writes and tokenizes each exactly as it does in an episode; only the observations need the
 * sandbox. A task is feasible when
 *  - it has a reference solution,
 *  - its commands fit in T turns (the oracle's closing `submit` is not needed: at the turn limit the
 *    harness still runs the verifier on the work done),
 *  - no call is longer than N tokens (the reply's text tokens, closing tag included, end-of-turn token
 *    excluded: a sampler cut at N tokens would leave that call unfinished), and
 *  - its first prompt (system prompt + instruction, rendered as the harness renders it) fits the window
 *    less the N tokens kept for the reply (else the episode stops at once with `context`).
 * Observations are not known without running the tasks; later turns can still outgrow the window, where
 * `drop-oldest` keeps the latest turn, so they are not part of the check.
 */
import { createTokenizedOraclePolicy } from '../../agent/policy/tokenized-oracle';
import type { Policy, TokenLevel } from '../../agent/policy/types';
import { createProtocol } from '../../agent/protocol';
import type { RunFeasibility } from '../../domain/runs';
import { solutionCommands, type Task } from '../tasks';
import { measurePrompts } from './prompt-fit';

/** Below this share of feasible tasks, evaluations and PPO warn: most rewards are out of reach. */
export const FEASIBLE_WARN_SHARE = 0.5;

export type InfeasibleReason = 'no-oracle' | 'turns' | 'tokens' | 'prompt';

export interface TaskFeasibility {
  id: string;
  family: string;
  feasible: boolean;
  /** Why not (empty when feasible); a task may fail several ways. */
  reasons: InfeasibleReason[];
  /** The oracle's commands: the turns it needs. */
  commands: number;
  /** Tokens of each oracle call, in order. */
  callTokens: number[];
  promptTokens: number;
}

export interface FamilyFeasibility {
  tasks: number;
  feasible: number;
  share: number;
}

export interface FeasibilityReport {
  tasks: number;
  feasible: number;
  share: number;
  byFamily: Record<string, FamilyFeasibility>;
  /** Oracle calls (over every task's whole solution) longer than the token budget. */
  cutCalls: { count: number; calls: number; share: number };
  budget: { maxTurns: number; maxTokens: number; contextWindow: number; promptBudget: number };
  /** Tasks that fail each condition (a task may count under several). */
  reasons: Record<InfeasibleReason, number>;
  /** The oracle's call lengths in tokens, and its commands per task. */
  callTokens: { median: number; p90: number; max: number };
  commands: { median: number; p90: number; max: number };
  perTask: TaskFeasibility[];
}

export interface FeasibilityOptions {
  maxTurns: number;
  /** The agent's time budget (the oracle writes it into each call); default: each task's own. */
  agentTimeoutSec?: number;
  /**
   * Count the solution's leading `set -…` / `cd /app` lines as calls of their own. Off by default: SFT data
   * (`t1lab tasks sft-data`) leaves them out, so the policy being measured was trained without them.
   */
  keepPreamble?: boolean;
}

/** The family of a synthesized task ([metadata] family), else its category. */
export function taskFamily(task: Task): string {
  const family = task.metadata.extra.family;
  return typeof family === 'string' && family ? family : task.metadata.category;
}

/** The q-quantile (nearest rank) of `xs`; 0 for none. */
function quantile(xs: readonly number[], q: number): number {
  if (!xs.length) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

const spread = (xs: readonly number[]) => ({
  median: quantile(xs, 0.5),
  p90: quantile(xs, 0.9),
  max: xs.length ? Math.max(...xs) : 0,
});
const share = (n: number, of: number) => (of ? n / of : 0);

/**
 * Tokens of each of the oracle's calls for a task (its closing `submit` excluded), as the token-level oracle
 * samples them in `level`'s tokenizer (the calls SFT data is made of), less the end-of-turn token.
 */
async function oracleCallTokens(
  task: Task,
  level: TokenLevel,
  agentTimeoutSec: number,
  keepPreamble: boolean,
): Promise<number[]> {
  const commands = solutionCommands(task);
  const protocol = createProtocol('hermes');
  // Only the replies' ids are used: the window and the end-of-turn id do not change them.
  const oracle = createTokenizedOraclePolicy({
    codec: level.codec,
    template: level.template,
    endOfTurnId: END_OF_TURN,
    contextWindow: 1,
    maxCompletionTokens: 1,
    skipPreamble: !keepPreamble,
  });
  const episode = await oracle.startEpisode({
    taskId: task.id,
    instruction: task.instruction,
    solutionCommands: commands,
    agentTimeoutSec,
    protocol,
    seed: 0,
  });
  const signal = new AbortController().signal;
  const calls: number[] = [];
  for (let turn = 0; turn <= commands.length; turn++) {
    const reply = await episode.turn({ messages: [], tools: [], promptIds: [], signal, turn });
    if (protocol.parse({ text: reply.text }).actions[0]?.tool !== 'bash') break;
    calls.push(reply.tokens!.ids.length - 1);
  }
  return calls;
}

/** A stand-in end-of-turn id: one token, dropped from every count. */
const END_OF_TURN = -1;

/**
 * The suite's feasibility for `policy` (a token-level policy: its codec, chat template, window and reply
 * budget are the budget measured against), or null when the policy is not token-level or cannot run the
 * oracle's protocol (terminus sends keystrokes).
 */
export async function measureFeasibility(
  policy: Policy,
  tasks: readonly Task[],
  options: FeasibilityOptions,
): Promise<FeasibilityReport | null> {
  const level = policy.tokenLevel;
  if (!level || policy.contextWindow === null || policy.protocol === 'terminus') return null;
  const maxTokens = policy.maxCompletionTokens;
  const prompts = measurePrompts(
    policy,
    tasks.map((t) => ({ id: t.id, instruction: t.instruction, agentTimeoutSec: t.agent.timeoutSec })),
    options.maxTurns,
    options.agentTimeoutSec,
  );
  const perTask: TaskFeasibility[] = [];
  for (const [i, task] of tasks.entries()) {
    const callTokens = task.solution
      ? await oracleCallTokens(
          task,
          level,
          options.agentTimeoutSec ?? task.agent.timeoutSec,
          options.keepPreamble === true,
        )
      : [];
    const prompt = prompts![i]!;
    const reasons: InfeasibleReason[] = [];
    if (!task.solution || callTokens.length === 0) reasons.push('no-oracle');
    if (callTokens.length > options.maxTurns) reasons.push('turns');
    if (callTokens.some((n) => n > maxTokens)) reasons.push('tokens');
    if (prompt.tokens > prompt.budget) reasons.push('prompt');
    perTask.push({
      id: task.id,
      family: taskFamily(task),
      feasible: reasons.length === 0,
      reasons,
      commands: callTokens.length,
      callTokens,
      promptTokens: prompt.tokens,
    });
  }
  return summarize(perTask, {
    maxTurns: options.maxTurns,
    maxTokens,
    contextWindow: policy.contextWindow,
    promptBudget: policy.contextWindow - maxTokens,
  });
}

export function summarize(perTask: TaskFeasibility[], budget: FeasibilityReport['budget']): FeasibilityReport {
  const byFamily: Record<string, FamilyFeasibility> = {};
  for (const t of perTask) {
    const f = (byFamily[t.family] ??= { tasks: 0, feasible: 0, share: 0 });
    f.tasks++;
    if (t.feasible) f.feasible++;
  }
  for (const f of Object.values(byFamily)) f.share = share(f.feasible, f.tasks);
  const calls = perTask.flatMap((t) => t.callTokens);
  const cut = calls.filter((n) => n > budget.maxTokens).length;
  const feasible = perTask.filter((t) => t.feasible).length;
  const count = (r: InfeasibleReason) => perTask.filter((t) => t.reasons.includes(r)).length;
  return {
    tasks: perTask.length,
    feasible,
    share: share(feasible, perTask.length),
    byFamily: Object.fromEntries(Object.entries(byFamily).sort(([a], [b]) => a.localeCompare(b))),
    cutCalls: { count: cut, calls: calls.length, share: share(cut, calls.length) },
    budget,
    reasons: {
      'no-oracle': count('no-oracle'),
      turns: count('turns'),
      tokens: count('tokens'),
      prompt: count('prompt'),
    },
    callTokens: spread(calls),
    commands: spread(perTask.map((t) => t.commands)),
    perTask,
  };
}

/**
 * The warning for a run whose suite the oracle mostly cannot finish at the run's budget, or null. Said
 * loudly because such a run measures (or, in PPO, trains on) rewards that are out of reach by construction.
 */
export function feasibilityWarning(report: FeasibilityReport | null, what: string): string | null {
  if (!report || report.tasks === 0 || report.share >= FEASIBLE_WARN_SHARE) return null;
  const { maxTurns, maxTokens } = report.budget;
  const why = (['turns', 'tokens', 'prompt', 'no-oracle'] as const)
    .filter((r) => report.reasons[r])
    .map((r) => `${report.reasons[r]} ${REASON_TEXT[r]}`);
  return (
    `warning: only ${report.feasible} of ${report.tasks} tasks of ${what} (${(100 * report.share).toFixed(0)}%) can be finished by the oracle itself ` +
    `at ${maxTurns} turns x ${maxTokens} tokens (${why.join('; ')}; ${report.cutCalls.count} of ${report.cutCalls.calls} oracle calls are longer than ${maxTokens} tokens). ` +
    `Raise --max-turns / --max-tokens (ppo.max_turns / ppo.max_tokens); see t1lab tasks feasible.`
  );
}

const REASON_TEXT: Record<InfeasibleReason, string> = {
  turns: 'need more turns',
  tokens: 'have a longer call',
  prompt: 'have a first prompt over the window',
  'no-oracle': 'have no reference solution',
};

/** What a run records of the report (run.json). */
export function runFeasibility(r: FeasibilityReport): RunFeasibility {
  return {
    tasks: r.tasks,
    feasible: r.feasible,
    share: r.share,
    maxTurns: r.budget.maxTurns,
    maxTokens: r.budget.maxTokens,
    cutCalls: r.cutCalls,
  };
}
