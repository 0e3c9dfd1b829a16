/**
 * Does a token-level policy's window hold a suite's prompts? The first prompt of each task (system prompt +
 * instruction, rendered by the policy's template exactly as the harness will) is measured against the
 * policy's budget (window minus the reply reserve). A task whose first prompt does not fit stops at once
 * with `context`, so the user is told before the run, not after.
 */
import { compactPrompt } from '../../agent/episode/loop';
import type { Policy } from '../../agent/policy/types';
import { createProtocol } from '../../agent/protocol';
import type { Task } from '../tasks';

export interface PromptFit {
  budget: number;
  longest: number;
  tooLong: string[];
}

export function measurePromptFit(policy: Policy, tasks: readonly Task[], maxTurns: number): PromptFit | null {
  const level = policy.tokenLevel;
  if (!level || policy.contextWindow === null) return null;
  const protocol = createProtocol(policy.protocol);
  const budget = policy.contextWindow - policy.maxCompletionTokens;
  const templateTools = level.template.rendersTools && protocol.name !== 'terminus';
  let longest = 0;
  const tooLong: string[] = [];
  for (const task of tasks) {
    const system = protocol.systemPrompt({ maxTurns, timeoutSec: task.agent.timeoutSec, toolsInTemplate: templateTools, compact: compactPrompt(policy) });
    const text = level.template.render(
      [
        { role: 'system', content: system },
        { role: 'user', content: task.instruction },
      ],
      { addGenerationPrompt: true, tools: templateTools ? protocol.tools : undefined },
    );
    const n = level.codec.encode(text).length;
    longest = Math.max(longest, n);
    if (n > budget) tooLong.push(task.id);
  }
  return { budget, longest, tooLong };
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
