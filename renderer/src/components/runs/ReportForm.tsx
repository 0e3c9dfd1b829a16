/**
 * A report of the checked runs: a title and notes (Markdown), exported as one HTML file that opens offline
 * (report-html.ts), with the runs table's columns of your choosing.
 */
import { useState } from 'react';
import type { RunListing } from '../../../../electron/domain/runs';
import { download } from './export';
import { reportHtml } from './report-html';
import { loadRunsTableView } from './runs-table-view';

export function ReportForm({ runs, onClose }: { runs: readonly RunListing[]; onClose: () => void }) {
  const [title, setTitle] = useState('Evaluation report');
  const [notes, setNotes] = useState('');
  const exportNow = () => {
    const now = new Date();
    const html = reportHtml({ title: title.trim() || 'Report', notes, runs, columns: loadRunsTableView().extra, generatedAt: now.toISOString() });
    download(`report-${now.toISOString().slice(0, 10)}.html`, html, 'text/html');
  };
  return (
    <section className="report-form" data-testid="report-form">
      <h3>{`Report of the ${runs.length} checked run${runs.length === 1 ? '' : 's'}`}</h3>
      <label>
        title <input value={title} onChange={(e) => setTitle(e.target.value)} data-testid="report-title" aria-label="report title" />
      </label>
      <textarea value={notes} onChange={(e) => setNotes(e.target.value)} rows={5} placeholder="notes (Markdown: # headings, - lists, **bold**, `code`)" data-testid="report-notes" aria-label="report notes" />
      <p className="muted small">One HTML file that opens offline: the notes, a resolved-rate chart with 95% intervals, and a table of the runs with the table’s added columns.</p>
      <div className="toolbar">
        <button type="button" onClick={exportNow} data-testid="report-export">
          Export HTML
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
