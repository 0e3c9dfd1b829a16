/**
 * The added tokens the lab's chat format relies on: ChatML turns (as Qwen writes them) and Hermes/Qwen
 * tool-call tags. The trainer adds them to every vocabulary it makes; loading finds them in any vocabulary.
 */
import type { SpecialTokenIds } from './types';

export const CHATML = {
  endOfText: '<|endoftext|>',
  imStart: '<|im_start|>',
  imEnd: '<|im_end|>',
} as const;

export const TOOL_TAGS = {
  toolCallStart: '<tool_call>',
  toolCallEnd: '</tool_call>',
  toolResponseStart: '<tool_response>',
  toolResponseEnd: '</tool_response>',
  thinkStart: '<think>',
  thinkEnd: '</think>',
} as const;

/** Content of each well-known token, by its key in SpecialTokenIds. */
export const WELL_KNOWN_TOKENS: Readonly<Record<Exclude<keyof SpecialTokenIds, 'pad' | 'eos' | 'bos'>, string>> = {
  ...CHATML,
  ...TOOL_TAGS,
};

export interface AddedTokenSpec {
  content: string;
  /** Hugging Face's `special`: skipped by decode(skipSpecialTokens). Qwen marks ChatML special and the tags not. */
  special: boolean;
}

/**
 * What `trainBpe` adds by default, in id order after the learned vocabulary. As in Qwen: the ChatML tokens
 * are `special` (dropped when decoding with skipSpecialTokens), the tool and think tags are not (a tool
 * call's text must survive decoding for the parser to find it).
 */
export const DEFAULT_ADDED_TOKENS: readonly AddedTokenSpec[] = [
  { content: CHATML.endOfText, special: true },
  { content: CHATML.imStart, special: true },
  { content: CHATML.imEnd, special: true },
  { content: TOOL_TAGS.toolCallStart, special: false },
  { content: TOOL_TAGS.toolCallEnd, special: false },
  { content: TOOL_TAGS.toolResponseStart, special: false },
  { content: TOOL_TAGS.toolResponseEnd, special: false },
  { content: TOOL_TAGS.thinkStart, special: false },
  { content: TOOL_TAGS.thinkEnd, special: false },
];
