import { useEffect } from 'react';
import { ConnectionBanner, useConnection } from './components/common/ConnectionBanner';
import { refreshStoresOnReconnect } from './lab/refresh-on-reconnect';
import { PAGES, PAGE_TITLES, useNav, type Page } from './stores/nav';
import { SystemPage } from './pages/SystemPage';
import { RunsPage } from './pages/RunsPage';
import { ModelsPage } from './pages/ModelsPage';
import { TasksPage } from './pages/TasksPage';
import { PlaceholderPage } from './pages/PlaceholderPage';
import { ShellPage } from './pages/ShellPage';
import { TrainingPage } from './pages/TrainingPage';
import { ComparePage } from './pages/ComparePage';
import { notifyWhenTrainingEnds } from './lab/notifications';
import { SavedViews } from './components/common/SavedViews';

function PageView({ page }: { page: Page }) {
  switch (page) {
    case 'system':
      return <SystemPage />;
    case 'runs':
      return <RunsPage />;
    case 'models':
      return <ModelsPage />;
    case 'tasks':
      return <TasksPage />;
    case 'shell':
      return <ShellPage />;
    case 'training':
      return <TrainingPage />;
    case 'compare':
      return <ComparePage />;
    default:
      return <PlaceholderPage page={page} />;
  }
}

function ConnectionBadge({ state }: { state: ReturnType<typeof useConnection> }) {
  return (
    <div className={`connection connection-${state.state}`} data-testid="connection" title={state.reason ?? ''}>
      {state.state === 'open'
        ? 'connected'
        : state.state === 'connecting'
          ? 'connecting…'
          : `disconnected${state.reason ? `: ${state.reason}` : ''}`}
    </div>
  );
}

export function App() {
  const { page, go } = useNav();
  useEffect(() => notifyWhenTrainingEnds(), []);
  const connection = useConnection();
  useEffect(() => refreshStoresOnReconnect(), []);
  const offline = connection.state !== 'open';
  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">T1 Lab</div>
        {PAGES.map((p) => (
          <button
            key={p}
            className={p === page ? 'nav-item active' : 'nav-item'}
            aria-current={p === page ? 'page' : undefined}
            onClick={() => go(p)}
          >
            {PAGE_TITLES[p]}
          </button>
        ))}
        <SavedViews />
        <ConnectionBadge state={connection} />
      </nav>
      <main className="content">
        <ConnectionBanner state={connection.state} reason={connection.reason} />
        <h1>{PAGE_TITLES[page]}</h1>
        {/* While the host is away every control of the page is disabled (a disabled fieldset disables them all). */}
        <fieldset
          className="page-fieldset"
          disabled={offline && connection.reason !== undefined}
          data-testid="page-fieldset"
        >
          <PageView page={page} />
        </fieldset>
      </main>
    </div>
  );
}
