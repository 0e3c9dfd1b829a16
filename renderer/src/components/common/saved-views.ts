/**
 * Named views: an address of the app (`#/training/RUN/o=…&q=…&pin=…`, `#/compare/A/B`, a run's tab) kept
 * under a name in the browser's storage, so a view made once (overlays, filters, panel layout, selection) is
 * one click away after a reload, and shareable as its link. What is read back is checked, entry by entry.
 */
import { MAX_ENTRIES, MAX_NAME, namedList } from '../../lab/stored-list';

export const SAVED_VIEWS_KEY = 't1lab.saved-views';
/** A name is for a person to read in the sidebar. */
export const MAX_VIEW_NAME = MAX_NAME;
export const MAX_VIEWS = MAX_ENTRIES;

export interface SavedView {
  name: string;
  /** The address, from `#/` on. */
  hash: string;
}

const views = namedList<SavedView>(SAVED_VIEWS_KEY, (o, name) =>
  typeof o.hash === 'string' && o.hash.startsWith('#/') && o.hash.length <= 8000 ? { name, hash: o.hash } : null,
);

export const parseSavedViews = views.parse;

/** Saving under a name that exists replaces that view (same place in the list); a new one goes last. */
export function withView(list: readonly SavedView[], name: string, hash: string): SavedView[] {
  return hash.startsWith('#/') ? views.with(list, { name, hash }) : [...list];
}

export const withoutView = views.without;
export const loadSavedViews = views.load;
export const storeSavedViews = views.store;
