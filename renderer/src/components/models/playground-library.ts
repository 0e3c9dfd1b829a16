/**
 * The playground's library, kept in the browser's storage: presets of sampling settings (three built in,
 * more saved under a name) and prompts saved under a name (a completion prompt, or a chat with its next
 * message). What is read back is checked, entry by entry.
 */
import { namedList } from '../../lab/stored-list';

export interface SamplingPreset {
  name: string;
  temperature: number;
  topP: number;
  topK: number;
  maxTokens: number;
  /** Stop sequences, one a line. */
  stop: string;
}

export interface SavedPrompt {
  name: string;
  mode: 'completion' | 'chat';
  prompt: string;
  system: string;
  message: string;
}

export const PRESETS_KEY = 't1lab.playground-presets';
export const PROMPTS_KEY = 't1lab.playground-prompts';

/** Built in: greedy as every evaluation decodes by default; the policy's own distribution; a narrower one. */
export const BUILTIN_PRESETS: readonly SamplingPreset[] = [
  { name: 'greedy (as evaluations)', temperature: 0, topP: 1, topK: 0, maxTokens: 48, stop: '' },
  { name: 'sample at T=1 (as rollouts)', temperature: 1, topP: 1, topK: 0, maxTokens: 48, stop: '' },
  { name: 'focused (T=0.7, top-p 0.9, top-k 40)', temperature: 0.7, topP: 0.9, topK: 40, maxTokens: 48, stop: '' },
];

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export const presetList = namedList<SamplingPreset>(PRESETS_KEY, (o, name) =>
  num(o.temperature) && num(o.topP) && num(o.topK) && num(o.maxTokens) && typeof o.stop === 'string'
    ? { name, temperature: o.temperature, topP: o.topP, topK: o.topK, maxTokens: o.maxTokens, stop: o.stop }
    : null,
);

export const promptList = namedList<SavedPrompt>(PROMPTS_KEY, (o, name) =>
  (o.mode === 'completion' || o.mode === 'chat') &&
  typeof o.prompt === 'string' &&
  typeof o.system === 'string' &&
  typeof o.message === 'string'
    ? { name, mode: o.mode, prompt: o.prompt, system: o.system, message: o.message }
    : null,
);
