/**
 * Named views: an address of the app (`#/training/RUN/o=…&q=…&pin=…`, `#/compare/A/B`, a run's tab) kept
 * under a name in the browser's storage, so a view made once (overlays, filters, panel layout, selection) is
 * one click away after a reload, and shareable as its link. What is read back is checked, entry by entry.
 */
export const SAVED_VIEWS_KEY = 't1lab.saved-views';
/** A name is for a person to read in the sidebar. */
export const MAX_VIEW_NAME = 60;
export const MAX_VIEWS = 50;

export interface SavedView {
  name: string;
  /** The address, from `#/` on. */
  hash: string;
}

const valid = (v: unknown): v is SavedView => {
  const o = v as Record<string, unknown> | null;
  return !!o && typeof o.name === 'string' && o.name.trim().length > 0 && o.name.length <= MAX_VIEW_NAME && typeof o.hash === 'string' && o.hash.startsWith('#/') && o.hash.length <= 8000;
};

export function parseSavedViews(text: string | null): SavedView[] {
  try {
    const raw: unknown = text ? JSON.parse(text) : [];
    return Array.isArray(raw) ? raw.filter(valid).map((v) => ({ name: v.name, hash: v.hash })).slice(0, MAX_VIEWS) : [];
  } catch {
    return [];
  }
}

/** Saving under a name that exists replaces that view (same place in the list); a new one goes last. */
export function withView(views: readonly SavedView[], name: string, hash: string): SavedView[] {
  const clean = name.trim().slice(0, MAX_VIEW_NAME);
  if (!clean || !hash.startsWith('#/')) return [...views];
  const at = views.findIndex((v) => v.name === clean);
  if (at >= 0) return views.map((v, i) => (i === at ? { name: clean, hash } : v));
  return [...views, { name: clean, hash }].slice(-MAX_VIEWS);
}

export function withoutView(views: readonly SavedView[], name: string): SavedView[] {
  return views.filter((v) => v.name !== name);
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

export const loadSavedViews = (): SavedView[] => parseSavedViews(storage()?.getItem(SAVED_VIEWS_KEY) ?? null);

export function storeSavedViews(views: readonly SavedView[]): void {
  try {
    storage()?.setItem(SAVED_VIEWS_KEY, JSON.stringify(views));
  } catch {
    // Not kept: the list still works for this visit.
  }
}
