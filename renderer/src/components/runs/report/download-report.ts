/** Export: the report as one HTML file that opens offline (report-html.ts), named by today's date. */
import type { ReportChart } from '../../../../../electron/domain/report-chart';
import { reportHtml, type ReportInput } from '../../../../../electron/domain/report-html';
import { download } from '../export';

export function downloadReport(report: Omit<ReportInput, 'generatedAt' | 'charts'> & { charts: ReportChart[] }): void {
  const now = new Date();
  const html = reportHtml({
    title: report.title.trim() || 'Report',
    notes: report.notes,
    runs: report.runs,
    columns: report.columns,
    generatedAt: now.toISOString(),
    charts: report.charts,
  });
  download(`report-${now.toISOString().slice(0, 10)}.html`, html, 'text/html');
}
