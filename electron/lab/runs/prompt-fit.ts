/**
 * Before a run: does each task's first prompt (system prompt + instruction, rendered by the policy's
 * template exactly as the harness will, compact system prompt included where the policy uses it) fit the
 * policy's context window, less what is kept for the reply? A small checkpoint whose window cannot hold a
 * suite's prompts would otherwise stop every episode with `context` and say little about why. Only
 * token-level policies (onnx:) can be measured exactly; others report nothing. The CLI prints a warning;
 * the Runs page refuses with the detail and offers "Start anyway".
 */
import { exactMeter } from '../../agent/context';
import { compactPrompt } from '../../agent/episode/loop';
import { createProtocol } from '../../agent/protocol';
import type { Policy } from '../../agent/policy/types';
import type { HarnessSettings } from '../../domain/runs';
import type { ChatMessage } from '../../domain/trajectory';
import type { Task } from '../tasks';

export interface PromptFit {
  taskId: string;
  /** Tokens of the first prompt. */
  tokens: number;
  /** Tokens the conversation may use: the window less the reply's reserve. */
  budget: number;
  window: number;
  reserve: number;
}

interface FitTask {
  id: string;
  instruction: string;
  agentTimeoutSec: number;
}

/** Every task's first-prompt size against the budget (null for policies that are not token-level). */
export function measurePrompts(
  policy: Policy,
  tasks: readonly FitTask[],
  maxTurns: number,
  agentTimeoutSec?: number,
): PromptFit[] | null {
  const level = policy.tokenLevel;
  if (!level || policy.contextWindow === null) return null;
  const protocol = createProtocol(policy.protocol);
  const templateTools = level.template.rendersTools && protocol.name !== 'terminus' ? protocol.tools : undefined;
  const meter = exactMeter(level.codec, level.template);
  const budget = policy.contextWindow - policy.maxCompletionTokens;
  return tasks.map((task) => {
    const system = protocol.systemPrompt({
      maxTurns,
      timeoutSec: agentTimeoutSec ?? task.agentTimeoutSec,
      toolsInTemplate: !!templateTools,
      compact: compactPrompt(policy),
    });
    const messages: ChatMessage[] = [
      { role: 'system', content: system },
      { role: 'user', content: task.instruction },
    ];
    return {
      taskId: task.id,
      tokens: meter.measure(messages),
      budget,
      window: policy.contextWindow!,
      reserve: policy.maxCompletionTokens,
    };
  });
}

export function promptsThatDoNotFit(policy: Policy, tasks: FitTask[], harness: HarnessSettings): PromptFit[] {
  return (measurePrompts(policy, tasks, harness.maxTurns, harness.agentTimeoutSec) ?? []).filter(
    (f) => f.tokens > f.budget,
  );
}

/** One sentence for the user: how many tasks cannot start, the worst case, and what to do. */
export function describeUnfit(unfit: PromptFit[], total: number): string {
  const worst = unfit.reduce((a, b) => (b.tokens > a.tokens ? b : a));
  return (
    `${unfit.length} of ${total} task${total === 1 ? '' : 's'} cannot fit this checkpoint's context: ` +
    `'${worst.taskId}' starts with a ${worst.tokens}-token prompt, and the window leaves ${worst.budget} ` +
    `(${worst.window} positions less ${worst.reserve} kept for the reply). Those episodes would stop at once with "context". ` +
    `Use a checkpoint with a longer window or a smaller reply reserve, or start anyway.`
  );
}

export interface SuiteFit {
  budget: number;
  longest: number;
  tooLong: string[];
}

export function measurePromptFit(policy: Policy, tasks: readonly Task[], maxTurns: number): SuiteFit | null {
  const fits = measurePrompts(
    policy,
    tasks.map((t) => ({ id: t.id, instruction: t.instruction, agentTimeoutSec: t.agent.timeoutSec })),
    maxTurns,
  );
  if (!fits) return null;
  return {
    budget: policy.contextWindow! - policy.maxCompletionTokens,
    longest: Math.max(0, ...fits.map((f) => f.tokens)),
    tooLong: fits.filter((f) => f.tokens > f.budget).map((f) => f.taskId),
  };
}

/** The warning to print before such a run, or null when every prompt fits. */
export function promptFitWarning(policy: Policy, tasks: readonly Task[], maxTurns: number): string | null {
  const fit = measurePromptFit(policy, tasks, maxTurns);
  if (!fit || fit.tooLong.length === 0) return null;
  const few = fit.tooLong.slice(0, 5).join(', ') + (fit.tooLong.length > 5 ? ', ...' : '');
  return (
    `warning: ${fit.tooLong.length} of ${tasks.length} task prompts do not fit ${policy.id}'s budget of ${fit.budget} tokens ` +
    `(window ${policy.contextWindow} minus ${policy.maxCompletionTokens} for the reply; the longest prompt has ${fit.longest}): ${few}. ` +
    'Those episodes stop at once with "context". Use a checkpoint with a larger window (model init --set max_position_embeddings=N) or a smaller --max-tokens.'
  );
}
