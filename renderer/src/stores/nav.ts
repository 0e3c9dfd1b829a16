/** Which page is shown; mirrored in the URL hash so reloads and links keep their place. */
import { create } from 'zustand';

export const PAGES = ['tasks', 'runs', 'training', 'models', 'shell', 'system'] as const;
export type Page = (typeof PAGES)[number];

export const PAGE_TITLES: Record<Page, string> = { tasks: 'Tasks', runs: 'Runs', training: 'Training', models: 'Models', shell: 'Shell', system: 'System' };

function pageFromHash(): Page {
  const name = location.hash.replace(/^#\/?/, '').split('/')[0] as Page;
  return PAGES.includes(name) ? name : 'tasks';
}

interface NavState {
  page: Page;
  go(page: Page): void;
}

export const useNav = create<NavState>((set) => ({
  page: pageFromHash(),
  go(page) {
    if (location.hash !== `#/${page}`) history.replaceState(null, '', `${location.pathname}${location.search}#/${page}`);
    set({ page });
  },
}));

window.addEventListener('hashchange', () => useNav.setState({ page: pageFromHash() }));
