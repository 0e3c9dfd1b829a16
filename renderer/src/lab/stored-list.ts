/**
 * What the renderer keeps in the browser's storage: a value under a key (the runs table's view), and lists
 * of entries saved under a name (the sidebar's saved views; the playground's presets, prompts and sessions).
 * Storage can be missing or refuse writes (a private window, a full quota): a read then finds nothing and a
 * write is dropped, and the page still works for this visit. A list read back is checked entry by entry: an
 * entry from an older version, or edited by hand, is left out instead of breaking the page.
 */

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

export function readStored(key: string): string | null {
  try {
    return storage()?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

export function writeStored(key: string, value: unknown): void {
  try {
    storage()?.setItem(key, JSON.stringify(value));
  } catch {
    // Not kept: it still works for this visit.
  }
}

/** A name is for a person to read in a list or a menu. */
export const MAX_NAME = 60;
/** The oldest entries go past this many. */
export const MAX_ENTRIES = 50;

/** Saving under a name that exists replaces that entry in place; a new one goes last; a blank name changes nothing. */
export function withNamed<T extends { name: string }>(list: readonly T[], entry: T): T[] {
  const name = entry.name.trim().slice(0, MAX_NAME);
  if (!name) return [...list];
  const named = { ...entry, name };
  const at = list.findIndex((e) => e.name === name);
  return at >= 0 ? list.map((e, i) => (i === at ? named : e)) : [...list, named].slice(-MAX_ENTRIES);
}

export function withoutNamed<T extends { name: string }>(list: readonly T[], name: string): T[] {
  return list.filter((e) => e.name !== name);
}

export interface NamedList<T extends { name: string }> {
  readonly key: string;
  /** The entries of a stored text that pass the check, at most MAX_ENTRIES. */
  parse(text: string | null): T[];
  load(): T[];
  store(list: readonly T[]): void;
  /** See withNamed. */
  with(list: readonly T[], entry: T): T[];
  without(list: readonly T[], name: string): T[];
}

/**
 * A list of named entries under `key`. `clean` checks one entry read back (its name already checked) and
 * returns it as the app uses it (only the fields it knows), or null to leave it out.
 */
export function namedList<T extends { name: string }>(
  key: string,
  clean: (o: Record<string, unknown>, name: string) => T | null,
): NamedList<T> {
  const parse = (text: string | null): T[] => {
    let raw: unknown;
    try {
      raw = text ? JSON.parse(text) : [];
    } catch {
      return [];
    }
    if (!Array.isArray(raw)) return [];
    const out: T[] = [];
    for (const o of raw) {
      if (!o || typeof o !== 'object') continue;
      const name = (o as Record<string, unknown>).name;
      if (typeof name !== 'string' || !name.trim() || name.length > MAX_NAME) continue;
      const entry = clean(o as Record<string, unknown>, name);
      if (entry) out.push(entry);
    }
    return out.slice(0, MAX_ENTRIES);
  };
  return {
    key,
    parse,
    load: () => parse(readStored(key)),
    store: (list) => writeStored(key, list),
    with: withNamed,
    without: withoutNamed,
  };
}
