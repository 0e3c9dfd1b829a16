/**
 * Before a run: does each task's first prompt (system prompt + instruction, rendered as the policy will)
 * fit the policy's context window, less what is kept for the reply? A small checkpoint whose window cannot
 * hold a suite's prompts would otherwise stop every episode with `context` and say little about why.
 * Only token-level policies (onnx:) can be measured exactly; others report nothing.
 */
import { exactMeter } from '../../agent/context';
import { createProtocol } from '../../agent/protocol';
import type { Policy } from '../../agent/policy/types';
import type { ChatMessage } from '../../domain/trajectory';
import type { HarnessSettings } from '../../domain/runs';

export interface PromptFit {
  taskId: string;
  /** Tokens of the first prompt. */
  tokens: number;
  /** Tokens the conversation may use: the window less the reply's reserve. */
  budget: number;
  window: number;
  reserve: number;
}

export function promptsThatDoNotFit(policy: Policy, tasks: { id: string; instruction: string; agentTimeoutSec: number }[], harness: HarnessSettings): PromptFit[] {
  const level = policy.tokenLevel;
  if (!level || policy.contextWindow === null) return [];
  const protocol = createProtocol(policy.protocol);
  const templateTools = level.template.rendersTools && protocol.name !== 'terminus' ? protocol.tools : undefined;
  const meter = exactMeter(level.codec, level.template);
  const budget = policy.contextWindow - policy.maxCompletionTokens;
  const unfit: PromptFit[] = [];
  for (const task of tasks) {
    const system = protocol.systemPrompt({ maxTurns: harness.maxTurns, timeoutSec: harness.agentTimeoutSec ?? task.agentTimeoutSec, toolsInTemplate: !!templateTools });
    const messages: ChatMessage[] = [
      { role: 'system', content: system },
      { role: 'user', content: task.instruction },
    ];
    const tokens = meter.measure(messages);
    if (tokens > budget) unfit.push({ taskId: task.id, tokens, budget, window: policy.contextWindow, reserve: policy.maxCompletionTokens });
  }
  return unfit;
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
