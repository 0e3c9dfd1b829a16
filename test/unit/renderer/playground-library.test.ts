/** The playground's presets and saved prompts: checked when read back, saved under a name (replacing one of that name). */
import { describe, expect, test } from 'vitest';
import { BUILTIN_PRESETS, presetList, promptList } from '../../../renderer/src/components/models/playground-library';

describe('playground library', () => {
  test('the built-in presets start with greedy, as evaluations decode', () => {
    expect(BUILTIN_PRESETS[0]).toMatchObject({ temperature: 0, topP: 1, topK: 0 });
  });
  test('saving a name again replaces it in place', () => {
    const a = { name: 'a', temperature: 0.3, topP: 1, topK: 7, maxTokens: 96, stop: '' };
    const b = { ...a, name: 'b' };
    expect(presetList.with(presetList.with([a, b], { ...a, temperature: 0.9 }), { ...a, name: ' ' })).toEqual([
      { ...a, temperature: 0.9 },
      b,
    ]);
  });
  test('entries read back are checked one by one', () => {
    expect(
      presetList.parse(
        JSON.stringify([
          { name: 'ok', temperature: 0, topP: 1, topK: 0, maxTokens: 8, stop: '' },
          { name: 'bad', temperature: 'hot' },
        ]),
      ),
    ).toHaveLength(1);
    expect(
      promptList.parse(
        JSON.stringify([
          { name: 'p', mode: 'chat', prompt: '', system: 's', message: 'm' },
          { name: 'q', mode: 'other', prompt: '', system: '', message: '' },
        ]),
      ),
    ).toHaveLength(1);
    expect(promptList.parse('{')).toEqual([]);
  });
});
