/** A run's name, tags and notes as the editor holds them, and the change it saves to the run's meta.json. */

/** The editor's fields as typed: the tags as one string, separated by spaces or commas. */
export interface RunMetaDraft {
  name: string;
  tags: string;
  notes: string;
}

/** What the run's meta.json says now. */
export interface RunMeta {
  name: string | null;
  tags: readonly string[];
  notes: string;
}

export const splitTags = (text: string) => [...new Set(text.split(/[\s,]+/).filter(Boolean))];

export const draftOfMeta = ({ name, tags, notes }: RunMeta): RunMetaDraft => ({
  name: name ?? '',
  tags: tags.join(' '),
  notes,
});

/** Whether saving the draft would change the run (a name of spaces is no name; the tags compare as a set in order). */
export function metaChanged(draft: RunMetaDraft, meta: RunMeta): boolean {
  return (
    draft.name.trim() !== (meta.name ?? '') ||
    splitTags(draft.tags).join(' ') !== meta.tags.join(' ') ||
    draft.notes !== meta.notes
  );
}

/** The patch `runs.setMeta` takes: the name (null clears it), the tags added and removed, the notes. */
export function metaPatch(draft: RunMetaDraft, tags: readonly string[]) {
  const wanted = splitTags(draft.tags);
  return {
    name: draft.name.trim() === '' ? null : draft.name.trim(),
    addTags: wanted.filter((t) => !tags.includes(t)),
    removeTags: tags.filter((t) => !wanted.includes(t)),
    notes: draft.notes,
  };
}
