/** The report as it will read: its title, its notes rendered, the training runs' charts and the resolved rates. */
import type { RunListing } from '../../../../../electron/domain/runs';
import { reportChartSvg, type ReportChart } from '../../../../../electron/domain/report-chart';
import { markdownToHtml, resolvedChart } from '../../../../../electron/domain/report-html';

export function ReportPreview({
  title,
  notes,
  charts,
  runs,
}: {
  title: string;
  notes: string;
  charts: readonly ReportChart[];
  runs: readonly RunListing[];
}) {
  return (
    <div className="report-preview" data-testid="report-preview">
      <h1>{title}</h1>
      {/* Markdown rendered by report-html.ts, which escapes everything the notes contain. */}
      <div className="notes" dangerouslySetInnerHTML={{ __html: markdownToHtml(notes) }} />
      {charts.map((c) => (
        <figure
          key={c.metric}
          className="report-chart"
          data-testid="report-chart"
          data-metric={c.metric}
          dangerouslySetInnerHTML={{ __html: reportChartSvg(c) }}
        />
      ))}
      {runs.length > 0 && <div className="report-resolved" dangerouslySetInnerHTML={{ __html: resolvedChart(runs) }} />}
    </div>
  );
}
