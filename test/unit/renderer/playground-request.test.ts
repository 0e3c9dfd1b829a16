import { expect, test } from 'vitest';
import {
  DEFAULT_SAMPLING,
  renderChat,
  sampleRequest,
} from '../../../renderer/src/components/models/playground-request';

test('sampleRequest: a completion sends the prompt and the typed stops; a chat sends ChatML and also stops at the turn end', () => {
  const settings = { ...DEFAULT_SAMPLING, stop: '\n\nEND\n$ ', seed: '7', threads: '' };
  expect(sampleRequest(settings, 'ls -la', null)).toEqual({
    prompt: 'ls -la',
    maxTokens: 48,
    temperature: 1,
    topP: 1,
    topK: 0,
    stop: ['END', '$ '],
    seed: 7,
    provider: 'auto',
    alternatives: 5,
  });
  const turns = [
    { role: 'system' as const, content: 'be brief' },
    { role: 'user' as const, content: 'hi' },
  ];
  const chat = sampleRequest({ ...DEFAULT_SAMPLING, stop: '<|im_end|>', threads: '2' }, 'ignored', turns);
  expect(chat.prompt).toBe(
    '<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n',
  );
  expect(chat.prompt).toBe(renderChat(turns));
  expect(chat).toMatchObject({ stop: ['<|im_end|>'], seed: undefined, threads: 2 });
});
