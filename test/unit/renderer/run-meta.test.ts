/** A run's name, tags and notes in the editor: when saving would change the run, and the patch it sends. */
import { describe, expect, test } from 'vitest';
import { draftOfMeta, metaChanged, metaPatch } from '../../../renderer/src/components/runs/run-meta';

const META = { name: 'baseline', tags: ['r3:on', 'seed1'], notes: 'n' };

describe('metaChanged', () => {
  test('the draft of the run as it is: no change, even with other spacing or a repeated tag', () => {
    expect(metaChanged(draftOfMeta(META), META)).toBe(false);
    expect(metaChanged({ name: ' baseline ', tags: 'r3:on, seed1 r3:on', notes: 'n' }, META)).toBe(false);
  });

  test('another name, tag order, or notes: a change', () => {
    expect(metaChanged({ ...draftOfMeta(META), name: 'other' }, META)).toBe(true);
    expect(metaChanged({ ...draftOfMeta(META), tags: 'seed1 r3:on' }, META)).toBe(true);
    expect(metaChanged({ ...draftOfMeta(META), notes: 'n2' }, META)).toBe(true);
  });
});

describe('metaPatch', () => {
  test('a blank name clears it; the tags added and removed; the notes as typed', () => {
    expect(metaPatch({ name: '  ', tags: 'seed1, new', notes: 'why' }, META.tags)).toEqual({
      name: null,
      addTags: ['new'],
      removeTags: ['r3:on'],
      notes: 'why',
    });
    expect(metaPatch({ name: ' kept ', tags: '', notes: '' }, []).name).toBe('kept');
  });
});
