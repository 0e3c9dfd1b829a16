import { describe, expect, test } from 'vitest';
import { decodeTaskId, readSocketMessage } from '../../../electron/lab/env/server';

describe('readSocketMessage: a WebSocket message as {type, data}, or a 400', () => {
  test('a JSON object reads as itself', () => {
    expect(readSocketMessage(Buffer.from('{"type":"step","data":{"command":"ls"}}'), false)).toEqual({
      type: 'step',
      data: { command: 'ls' },
    });
  });

  test('binary frames, text that is not JSON, and JSON that is no object are refused with 400', () => {
    expect(() => readSocketMessage(Buffer.from('{}'), true)).toThrow(
      expect.objectContaining({ status: 400, message: 'send text frames of JSON' }),
    );
    for (const text of ['{type:', 'null', '[1]', '"reset"', '3']) {
      expect(() => readSocketMessage(Buffer.from(text), false)).toThrow(
        expect.objectContaining({ status: 400, message: 'a message is a JSON object {type, data}' }),
      );
    }
  });
});

test('decodeTaskId percent-decodes a path segment; bad encoding is a 400', () => {
  expect(decodeTaskId('fix%20perms-1')).toBe('fix perms-1');
  expect(() => decodeTaskId('bad%E0%A4%A')).toThrow(expect.objectContaining({ status: 400 }));
});
