/**
 * The LM stage's copy drills (`data.path = ["builtin", "builtin:copy"]`): deterministic, and what makes them
 * drills: the random names an instruction gives come back, character for character, in the tool calls.
 */
import { describe, expect, it } from 'vitest';
import { copyDrills } from '../../../../electron/lab/training/corpus/copy-drills';
import { loadCorpus } from '../../../../electron/lab/training/corpus';
import { isBuiltinCorpus } from '../../../../electron/lab/training/corpus/names';

/** Words of 3+ characters with a digit: random spans (nouns and shell words have none). */
const randomWords = (text: string) =>
  new Set((text.match(/[a-z0-9_]*[0-9][a-z0-9_]*/g) ?? []).filter((w) => w.length >= 3));

describe('copy drills', () => {
  it('are the same documents for the same seed and others for another', () => {
    expect(copyDrills(50, 3)).toEqual(copyDrills(50, 3));
    expect(copyDrills(50, 4)).not.toEqual(copyDrills(50, 3));
  });

  it('repeat the random names of the instruction in the tool calls or the second half', () => {
    const docs = copyDrills(400, 9);
    let withCopies = 0;
    for (const doc of docs) {
      const transcript = doc.startsWith('<|im_start|>user\n');
      const first = transcript ? doc.slice(0, doc.indexOf('<|im_end|>')) : doc.slice(0, doc.length / 2);
      const rest = transcript ? doc.slice(doc.indexOf('<|im_start|>assistant')) : doc.slice(doc.length / 2);
      const given = randomWords(first);
      const copied = [...given].filter((w) => rest.includes(w));
      if (given.size > 0 && copied.length === given.size) withCopies++;
    }
    // Every document copies all of its random names (a transcript's instruction may also name a number
    // the commands do not need, such as a count; allow a few).
    expect(withCopies).toBeGreaterThan(docs.length * 0.9);
    expect(docs.some((d) => d.includes('<tool_call>\n{"name":"bash"'))).toBe(true);
    expect(
      docs.some(
        (d) => d.startsWith('The list:') || d.startsWith('Items:') || d.startsWith('Names:') || d.startsWith('Paths:'),
      ),
    ).toBe(true);
  });

  it('are a data.path entry of their own, never read as a file', async () => {
    expect(isBuiltinCorpus('builtin:copy')).toBe(true);
    expect(isBuiltinCorpus('./builtin:copy')).toBe(false);
    const docs = await loadCorpus(['builtin:copy'], null);
    expect(docs.length).toBeGreaterThan(1000);
    expect(new Set(docs.map((d) => d.source))).toEqual(new Set(['copy-drills']));
  });
});
