/**
 * Playground sessions saved under a name in the browser's storage: the model (and the one beside it), the
 * mode, the prompt or the chat (system prompt and messages) with the next message, and the sampling
 * settings. What is read back is checked field by field: a bad setting takes its default, a bad turn is left
 * out, and an entry without a model is left out.
 */
import { namedList } from '../../lab/stored-list';
import { DEFAULT_SAMPLING, type ChatTurn, type SamplingSettings } from './playground-request';

export const SESSIONS_KEY = 't1lab.playground-sessions';

export interface PlaygroundSession {
  name: string;
  /** The checkpoint sampled (its path). */
  model: string;
  /** The checkpoint sampled beside it on the same prompt, or null. */
  beside: string | null;
  mode: 'completion' | 'chat';
  /** The completion prompt. */
  prompt: string;
  /** The chat: the system turn, then the messages. */
  chat: ChatTurn[];
  /** The chat's next message, as typed. */
  message: string;
  settings: SamplingSettings;
  /** When it was saved (ISO 8601). */
  savedAt: string;
}

const ROLES: readonly ChatTurn['role'][] = ['system', 'user', 'assistant'];
const PROVIDERS: readonly SamplingSettings['provider'][] = ['auto', 'cpu', 'cuda'];
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const digits = (v: unknown): v is string => typeof v === 'string' && /^\d*$/.test(v);

/** Each setting checked on its own; a bad or missing one takes its default. */
export function cleanSettings(raw: unknown): SamplingSettings {
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const d = DEFAULT_SAMPLING;
  return {
    maxTokens: num(o.maxTokens) ? o.maxTokens : d.maxTokens,
    temperature: num(o.temperature) ? o.temperature : d.temperature,
    topP: num(o.topP) ? o.topP : d.topP,
    topK: num(o.topK) ? o.topK : d.topK,
    stop: typeof o.stop === 'string' ? o.stop : d.stop,
    seed: digits(o.seed) ? o.seed : d.seed,
    threads: digits(o.threads) ? o.threads : d.threads,
    provider: PROVIDERS.includes(o.provider as SamplingSettings['provider'])
      ? (o.provider as SamplingSettings['provider'])
      : d.provider,
    alternatives: num(o.alternatives) ? o.alternatives : d.alternatives,
  };
}

/** The turns that are turns; the chat always starts with a system turn (empty if there was none). */
export function cleanChat(raw: unknown): ChatTurn[] {
  const turns = (Array.isArray(raw) ? raw : [])
    .filter(
      (t): t is ChatTurn =>
        !!t &&
        typeof t === 'object' &&
        ROLES.includes((t as ChatTurn).role) &&
        typeof (t as ChatTurn).content === 'string',
    )
    .map((t) => ({ role: t.role, content: t.content }));
  return turns[0]?.role === 'system' ? turns : [{ role: 'system', content: '' }, ...turns];
}

export const sessionList = namedList<PlaygroundSession>(SESSIONS_KEY, (o, name) => {
  if (typeof o.model !== 'string' || !o.model) return null;
  return {
    name,
    model: o.model,
    beside: typeof o.beside === 'string' && o.beside ? o.beside : null,
    mode: o.mode === 'chat' ? 'chat' : 'completion',
    prompt: typeof o.prompt === 'string' ? o.prompt : '',
    chat: cleanChat(o.chat),
    message: typeof o.message === 'string' ? o.message : '',
    settings: cleanSettings(o.settings),
    savedAt: typeof o.savedAt === 'string' ? o.savedAt : '',
  };
});

/**
 * The models a session reopens on, of the checkpoints listed now: its model and the one beside it, each
 * null when it is not listed (a folder removed, a run deleted), with the paths that are missing.
 */
export function sessionModels(
  session: Pick<PlaygroundSession, 'model' | 'beside'>,
  listed: readonly string[],
): { model: string | null; beside: string | null; missing: string[] } {
  const has = (p: string | null) => p !== null && listed.includes(p);
  return {
    model: has(session.model) ? session.model : null,
    beside: has(session.beside) ? session.beside : null,
    missing: [session.model, session.beside].filter((p): p is string => p !== null && !has(p)),
  };
}

/** A session's one-line summary for the list: the mode, how many messages, the model(s), when saved. */
export function sessionSummary(s: PlaygroundSession, nameOf: (path: string) => string): string {
  const what = s.mode === 'chat' ? `chat, ${s.chat.length - 1} message${s.chat.length === 2 ? '' : 's'}` : 'completion';
  const models = s.beside ? `${nameOf(s.model)} | ${nameOf(s.beside)}` : nameOf(s.model);
  return `${what} · ${models}${s.savedAt ? ` · ${s.savedAt.slice(0, 16).replace('T', ' ')}` : ''}`;
}
