/**
 * The sidebar's saved views: **save view** names the current address (the page and everything it keeps
 * there); each saved view is a link that opens it again, here or, copied, in another browser.
 */
import { useState } from 'react';
import { loadSavedViews, MAX_VIEW_NAME, storeSavedViews, withoutView, withView, type SavedView } from './saved-views';

export function SavedViews() {
  const [views, setViews] = useState<SavedView[]>(loadSavedViews);
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const update = (next: SavedView[]) => {
    setViews(next);
    storeSavedViews(next);
  };
  const save = () => {
    update(withView(views, name, location.hash || '#/'));
    setNaming(false);
    setName('');
  };
  return (
    <section className="saved-views" data-testid="saved-views" aria-label="saved views">
      <div className="saved-views-head">
        <span className="muted small">views</span>
        <button
          type="button"
          className="link small"
          onClick={() => setNaming((n) => !n)}
          data-testid="save-view"
          title="save this page's view (its address) under a name"
        >
          save view
        </button>
      </div>
      {naming && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save();
          }}
        >
          <input
            autoFocus
            value={name}
            maxLength={MAX_VIEW_NAME}
            placeholder="name"
            onChange={(e) => setName(e.target.value)}
            data-testid="view-name"
            aria-label="view name"
          />
        </form>
      )}
      {views.map((v) => (
        <div key={v.name} className="saved-view" data-testid="saved-view" data-name={v.name}>
          <a href={v.hash} title={v.hash}>
            {v.name}
          </a>
          <button
            type="button"
            className="link small"
            aria-label={`forget view ${v.name}`}
            onClick={() => update(withoutView(views, v.name))}
            data-testid="forget-view"
          >
            ×
          </button>
        </div>
      ))}
    </section>
  );
}
