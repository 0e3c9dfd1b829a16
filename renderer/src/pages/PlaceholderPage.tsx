import { PAGE_TITLES, type Page } from '../stores/nav';

const PLANNED: Partial<Record<Page, string>> = {
  tasks: 'Browse, filter and audit executable terminal tasks.',
  runs: 'Start evaluation runs, watch live terminals, read results with confidence intervals.',
  training: 'Post-train the policy with PPO on the tasks’ verifiers.',
  models: 'Checkpoints, their providers and a sampling playground.',
};

export function PlaceholderPage({ page }: { page: Page }) {
  return (
    <section className="placeholder" data-testid={`page-${page}`}>
      <p>{PLANNED[page] ?? PAGE_TITLES[page]}</p>
      <p className="muted">This page is not built yet.</p>
    </section>
  );
}
