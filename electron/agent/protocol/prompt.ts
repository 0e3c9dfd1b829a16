/** The parts of the system prompt every protocol shares: who the agent is, where it works, its limits. */
import type { PromptContext } from './types';

export function agentIntro(): string {
  return (
    'You are an AI agent solving a task in a Linux terminal. The task is described in the next message. ' +
    'You work in a real shell inside a sandbox (no internet unless the task says otherwise); the task files are in the working directory. ' +
    'Work step by step, look at the results of what you run, and check your work before you finish.'
  );
}

export function limitsLine(context: PromptContext): string {
  const minutes = context.timeoutSec / 60;
  const time = minutes >= 2 ? `${Math.round(minutes)} minutes` : `${Math.round(context.timeoutSec)} seconds`;
  return `Limits: at most ${context.maxTurns} turns and ${time} in total; when either runs out the episode ends and your work is checked as it stands.`;
}
