/** Playground sessions: read back checked field by field, saved and reopened through storage, deleted; which models a session reopens on. */
import { afterEach, describe, expect, test } from 'vitest';
import { DEFAULT_SAMPLING } from '../../../renderer/src/components/models/playground-request';
import {
  cleanChat,
  cleanSettings,
  SESSIONS_KEY,
  sessionList,
  sessionModels,
  sessionSummary,
  type PlaygroundSession,
} from '../../../renderer/src/components/models/playground-sessions';

const g = globalThis as { localStorage?: unknown };
afterEach(() => {
  delete g.localStorage;
});

const session: PlaygroundSession = {
  name: 'ls on both',
  model: '/models/nano-sft',
  beside: '/models/nano-rl-dense',
  mode: 'chat',
  prompt: '',
  chat: [
    { role: 'system', content: 'You are a terminal agent.' },
    { role: 'user', content: 'List /app.' },
    { role: 'assistant', content: 'ls /app' },
  ],
  message: 'And /tmp?',
  settings: { ...DEFAULT_SAMPLING, temperature: 0, seed: '7', threads: '2', provider: 'cpu', stop: '\n' },
  savedAt: '2026-12-06T21:00:00.000Z',
};

describe('playground sessions', () => {
  test('a session saved to storage reads back the same; saved again under its name it is replaced; deleted it is gone', () => {
    const m = new Map<string, string>();
    g.localStorage = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v) };
    sessionList.store(sessionList.with([], session));
    expect(m.has(SESSIONS_KEY)).toBe(true);
    expect(sessionList.load()).toEqual([session]);
    const other = { ...session, name: 'other', beside: null, mode: 'completion' as const, prompt: 'echo hi' };
    let saved = sessionList.with(sessionList.load(), other);
    saved = sessionList.with(saved, { ...session, message: 'changed' });
    sessionList.store(saved);
    expect(sessionList.load().map((s) => [s.name, s.message])).toEqual([
      ['ls on both', 'changed'],
      ['other', 'And /tmp?'],
    ]);
    sessionList.store(sessionList.without(sessionList.load(), 'ls on both'));
    expect(sessionList.load().map((s) => s.name)).toEqual(['other']);
  });

  test('read back field by field: a bad setting takes its default, a bad turn is left out, no model leaves the entry out', () => {
    const stored = [
      {
        ...session,
        settings: { ...session.settings, temperature: 'hot', seed: '12a', provider: 'tpu', topK: 40 },
        chat: [{ role: 'user', content: 'hi' }, { role: 'robot', content: 'x' }, 'junk'],
      },
      { ...session, name: 'no model', model: '' },
      { name: 'old', model: '/m' },
    ];
    const [a, b, ...rest] = sessionList.parse(JSON.stringify(stored));
    expect(rest).toEqual([]);
    expect(a!.settings).toEqual({
      ...session.settings,
      temperature: DEFAULT_SAMPLING.temperature,
      seed: '',
      provider: 'auto',
      topK: 40,
    });
    expect(a!.chat).toEqual([
      { role: 'system', content: '' },
      { role: 'user', content: 'hi' },
    ]);
    expect(b).toEqual({
      name: 'old',
      model: '/m',
      beside: null,
      mode: 'completion',
      prompt: '',
      chat: [{ role: 'system', content: '' }],
      message: '',
      settings: DEFAULT_SAMPLING,
      savedAt: '',
    });
    expect(cleanSettings(null)).toEqual(DEFAULT_SAMPLING);
    expect(cleanChat(session.chat)).toEqual(session.chat);
  });

  test('a session reopens on its models when they are listed, and names the ones that are not', () => {
    expect(sessionModels(session, ['/models/nano-sft', '/models/nano-rl-dense'])).toEqual({
      model: '/models/nano-sft',
      beside: '/models/nano-rl-dense',
      missing: [],
    });
    expect(sessionModels(session, ['/models/nano-rl-dense'])).toEqual({
      model: null,
      beside: '/models/nano-rl-dense',
      missing: ['/models/nano-sft'],
    });
    expect(sessionModels({ model: '/a', beside: null }, ['/a'])).toEqual({ model: '/a', beside: null, missing: [] });
  });

  test('the list says what a session holds', () => {
    const name = (p: string) => p.split('/').pop()!;
    expect(sessionSummary(session, name)).toBe('chat, 2 messages · nano-sft | nano-rl-dense · 2026-12-06 21:00');
    expect(sessionSummary({ ...session, mode: 'completion', beside: null, savedAt: '' }, name)).toBe(
      'completion · nano-sft',
    );
  });
});
