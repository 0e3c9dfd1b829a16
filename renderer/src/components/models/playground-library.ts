/**
 * The playground's library, kept in the browser's storage: presets of sampling settings (three built in,
 * more saved under a name) and prompts saved under a name (a completion prompt, or a chat with its next
 * message). What is read back is checked, entry by entry.
 */
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
const MAX_NAME = 60;
const MAX_ENTRIES = 50;

/** Built in: greedy as every evaluation decodes by default; the policy's own distribution; a narrower one. */
export const BUILTIN_PRESETS: readonly SamplingPreset[] = [
  { name: 'greedy (as evaluations)', temperature: 0, topP: 1, topK: 0, maxTokens: 48, stop: '' },
  { name: 'sample at T=1 (as rollouts)', temperature: 1, topP: 1, topK: 0, maxTokens: 48, stop: '' },
  { name: 'focused (T=0.7, top-p 0.9, top-k 40)', temperature: 0.7, topP: 0.9, topK: 40, maxTokens: 48, stop: '' },
];

const named = (o: Record<string, unknown>) => typeof o.name === 'string' && o.name.trim().length > 0 && o.name.length <= MAX_NAME;
const num = (v: unknown) => typeof v === 'number' && Number.isFinite(v);

function parseList<T>(text: string | null, valid: (o: Record<string, unknown>) => boolean): T[] {
  try {
    const raw: unknown = text ? JSON.parse(text) : [];
    return Array.isArray(raw) ? (raw.filter((o) => o && typeof o === 'object' && named(o as Record<string, unknown>) && valid(o as Record<string, unknown>)) as T[]).slice(0, MAX_ENTRIES) : [];
  } catch {
    return [];
  }
}

export const parsePresets = (text: string | null) =>
  parseList<SamplingPreset>(text, (o) => num(o.temperature) && num(o.topP) && num(o.topK) && num(o.maxTokens) && typeof o.stop === 'string');
export const parsePrompts = (text: string | null) =>
  parseList<SavedPrompt>(text, (o) => (o.mode === 'completion' || o.mode === 'chat') && typeof o.prompt === 'string' && typeof o.system === 'string' && typeof o.message === 'string');

/** Saving under a name that exists replaces that entry in place; a new one goes last. */
export function withEntry<T extends { name: string }>(list: readonly T[], entry: T): T[] {
  const name = entry.name.trim().slice(0, MAX_NAME);
  if (!name) return [...list];
  const clean = { ...entry, name };
  const at = list.findIndex((e) => e.name === name);
  return at >= 0 ? list.map((e, i) => (i === at ? clean : e)) : [...list, clean].slice(-MAX_ENTRIES);
}

interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

function storage(): KeyValueStorage | null {
  try {
    return (globalThis as { localStorage?: KeyValueStorage }).localStorage ?? null;
  } catch {
    return null;
  }
}

export const loadPresets = () => parsePresets(storage()?.getItem(PRESETS_KEY) ?? null);
export const loadPrompts = () => parsePrompts(storage()?.getItem(PROMPTS_KEY) ?? null);

export function storeList(key: string, list: readonly unknown[]): void {
  try {
    storage()?.setItem(key, JSON.stringify(list));
  } catch {
    // Not kept: the list still works for this visit.
  }
}
