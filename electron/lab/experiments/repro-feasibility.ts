/**
 * The reproduction's feasibility column: per eval suite (as evaluated, at the evaluations' budget) and for
 * the PPO train pack (at PPO's budget), how many tasks the oracle itself can finish, in the checkpoints'
 * tokenizer (every model of the reproduction shares the base's). A resolved rate reads differently when
 * the oracle could only reach 15% of the suite.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { checkpointOraclePolicy } from '../runs/checkpoint-oracle';
import { measureFeasibility } from '../runs/feasibility';
import { loadTaskSource } from '../tasks';

export interface ReproFeasibility {
  suite: string;
  /** Whose budget: the evaluations' (`evalArgs`) or PPO's (the train pack). */
  budget: 'eval' | 'ppo';
  tasks: number;
  feasible: number;
  share: number;
  maxTurns: number;
  maxTokens: number;
  cutCalls: { count: number; calls: number; share: number };
}

export interface BudgetArgs {
  maxTurns: number;
  maxTokens?: number;
  agentTimeoutSec?: number;
}

/** The harness budget of `t1lab eval` arguments (its defaults where they are not given). */
export function evalBudget(args: readonly string[]): BudgetArgs {
  const value = (flag: string): number | undefined => {
    const i = args.lastIndexOf(flag);
    const v = i >= 0 ? Number(args[i + 1]) : NaN;
    return Number.isFinite(v) && v > 0 ? v : undefined;
  };
  const maxTokens = value('--max-tokens');
  const agentTimeoutSec = value('--agent-timeout');
  return {
    maxTurns: value('--max-turns') ?? 300,
    ...(maxTokens ? { maxTokens } : {}),
    ...(agentTimeoutSec ? { agentTimeoutSec } : {}),
  };
}

/** The budget of a PPO config file (ppo.max_turns, ppo.max_tokens, ppo.agent_timeout_sec; 0 = unset). */
export function ppoBudget(configFile: string): BudgetArgs | null {
  if (!existsSync(configFile)) return null;
  const ppo = ((parseToml(readFileSync(configFile, 'utf8')) as { ppo?: Record<string, unknown> }).ppo ?? {}) as Record<
    string,
    unknown
  >;
  const n = (k: string) => (typeof ppo[k] === 'number' && (ppo[k] as number) > 0 ? (ppo[k] as number) : undefined);
  const maxTokens = n('max_tokens');
  const agentTimeoutSec = n('agent_timeout_sec');
  return {
    maxTurns: n('max_turns') ?? 8,
    ...(maxTokens ? { maxTokens } : {}),
    ...(agentTimeoutSec ? { agentTimeoutSec } : {}),
  };
}

export async function suiteFeasibility(
  checkpoint: string,
  suite: string,
  path: string,
  budget: BudgetArgs,
  whose: ReproFeasibility['budget'],
): Promise<ReproFeasibility> {
  const policy = checkpointOraclePolicy(checkpoint, { maxTokens: budget.maxTokens });
  const tasks = (await loadTaskSource(path)).tasks;
  const r = (await measureFeasibility(policy, tasks, {
    maxTurns: budget.maxTurns,
    ...(budget.agentTimeoutSec ? { agentTimeoutSec: budget.agentTimeoutSec } : {}),
  }))!;
  return {
    suite,
    budget: whose,
    tasks: r.tasks,
    feasible: r.feasible,
    share: r.share,
    maxTurns: r.budget.maxTurns,
    maxTokens: r.budget.maxTokens,
    cutCalls: r.cutCalls,
  };
}
