/** What the playground asks the policy worker for: the settings as typed, the prompt or the chat as ChatML. */
import type { PlaygroundRequest } from '../../../../electron/domain/models';

export const IM_END = '<|im_end|>';

export interface ChatTurn {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The sampling settings as the form holds them (seed and threads as typed digits, '' for none). */
export interface SamplingSettings {
  maxTokens: number;
  temperature: number;
  topP: number;
  topK: number;
  /** Stop sequences, one per line. */
  stop: string;
  seed: string;
  threads: string;
  provider: 'auto' | 'cpu' | 'cuda';
  /** Most likely tokens shown at each position. */
  alternatives: number;
}

export const DEFAULT_SAMPLING: SamplingSettings = {
  maxTokens: 48,
  temperature: 1,
  topP: 1,
  topK: 0,
  stop: '',
  seed: '',
  threads: '',
  provider: 'auto',
  alternatives: 5,
};

/** ChatML, as the lab's checkpoints are trained on; ends with the assistant header so the model answers. */
export function renderChat(turns: ChatTurn[]): string {
  return turns.map((t) => `<|im_start|>${t.role}\n${t.content}${IM_END}\n`).join('') + '<|im_start|>assistant\n';
}

/** The request for a completion, or for a chat with `conversation` (the turns so far and the new message; it stops at the turn's end too). */
export function sampleRequest(
  s: SamplingSettings,
  prompt: string,
  conversation: ChatTurn[] | null,
): Omit<PlaygroundRequest, 'path'> {
  const stops = s.stop.split('\n').filter((x) => x.length > 0);
  return {
    prompt: conversation ? renderChat(conversation) : prompt,
    maxTokens: s.maxTokens,
    temperature: s.temperature,
    topP: s.topP,
    topK: s.topK,
    stop: conversation ? [...new Set([...stops, IM_END])] : stops,
    seed: s.seed === '' ? undefined : Number(s.seed),
    provider: s.provider,
    alternatives: s.alternatives,
    ...(s.threads === '' ? {} : { threads: Number(s.threads) }),
  };
}
