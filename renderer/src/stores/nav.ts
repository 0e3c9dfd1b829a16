/**
 * Which page is shown, and what in it: mirrored in the URL hash so reloads, links and the back button keep
 * their place. `#/runs/RUN/EPISODE/TURN`, `#/tasks/SOURCE/ID`: the segments after the page are its
 * `params`, each URI-encoded.
 */
import { create } from 'zustand';

export const PAGES = ['tasks', 'runs', 'training', 'compare', 'models', 'shell', 'system'] as const;
export type Page = (typeof PAGES)[number];

export const PAGE_TITLES: Record<Page, string> = {
  tasks: 'Tasks',
  runs: 'Runs',
  training: 'Training',
  compare: 'Compare',
  models: 'Models',
  shell: 'Shell',
  system: 'System',
};

function parseHash(): { page: Page; params: string[] } {
  const [name, ...rest] = location.hash.replace(/^#\/?/, '').split('/');
  const page = PAGES.includes(name as Page) ? (name as Page) : 'tasks';
  const params = rest
    .filter((p) => p !== '')
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  return { page, params };
}

export function hashFor(page: Page, params: readonly (string | number)[] = []): string {
  return `#/${[page, ...params.map((p) => encodeURIComponent(String(p)))].join('/')}`;
}

interface NavState {
  page: Page;
  /** What the page shows (a run and episode, a task), from the hash. */
  params: string[];
  go(page: Page): void;
  /** Point the address at `page/params` without leaving the page (a selection that deserves a link). */
  link(page: Page, params: readonly (string | number)[], options?: { replace?: boolean }): void;
}

export const useNav = create<NavState>((set) => ({
  ...parseHash(),
  go(page) {
    if (location.hash !== `#/${page}`)
      history.replaceState(null, '', `${location.pathname}${location.search}#/${page}`);
    set({ page, params: [] });
  },
  link(page, params, options) {
    const hash = hashFor(page, params);
    if (location.hash !== hash) {
      if (options?.replace) history.replaceState(null, '', `${location.pathname}${location.search}${hash}`);
      else history.pushState(null, '', `${location.pathname}${location.search}${hash}`);
    }
    set({ page, params: params.map(String) });
  },
}));

const follow = () => useNav.setState(parseHash());
window.addEventListener('hashchange', follow);
window.addEventListener('popstate', follow);
