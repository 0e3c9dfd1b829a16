/**
 * Saved reports: a report of chosen runs (its title, Markdown notes, evaluation runs, training runs charted
 * by the chosen metrics, pooled over seeds or not, and the table's added columns) kept under a name in the
 * lab's data folder, one file per report (`reports/ID.json`), so the Runs page and `t1lab runs reports` list,
 * open, rename and remove the same reports. The id is made once from the first name and never changes: it is
 * the report's address (`#/runs/report/ID`), which a rename leaves working.
 */
import { z } from 'zod';

export const REPORT_SCHEMA = 't1lab.report/1';
export const REPORTS_FOLDER = 'reports';

export const ReportName = z
  .string()
  .trim()
  .min(1, 'a report name is not empty')
  .max(120, 'a report name is at most 120 characters');

/** Lower-case letters, digits and dashes: a file name and a segment of an address as it is. */
export const ReportId = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,63}$/,
    'a report id is 1-64 characters: a-z, 0-9 and -, starting with a letter or digit',
  );

const RunRef = z.string().min(1).max(300);

/** What a report shows: everything the report form sets. */
export const ReportContent = z
  .object({
    title: z.string().max(300),
    notes: z.string().max(100_000),
    /** Evaluation runs (ids under runs/): the resolved-rate chart and the runs table. */
    evalRuns: z.array(RunRef).max(500),
    /** Training runs (ids under training/): a chart per metric by step. */
    trainingRuns: z.array(RunRef).max(500),
    metrics: z.array(z.string().min(1).max(200)).max(100),
    poolSeeds: z.boolean(),
    /** The runs table's added columns (config.…, summary.…). */
    columns: z.array(z.string().min(1).max(300)).max(100),
  })
  .strict();
export type ReportContent = z.infer<typeof ReportContent>;

export const SavedReport = ReportContent.extend({
  schema: z.literal(REPORT_SCHEMA),
  id: ReportId,
  name: ReportName,
  createdAt: z.string(),
  updatedAt: z.string(),
}).strict();
export type SavedReport = z.infer<typeof SavedReport>;

/** A report file that cannot be read: named, with what is wrong; it is left as it is. */
export const ReportProblem = z.object({ file: z.string(), message: z.string() });
export type ReportProblem = z.infer<typeof ReportProblem>;

/** What `t1lab runs reports list --json` prints and `reports.list` returns. */
export const ReportList = z.object({
  dir: z.string(),
  reports: z.array(SavedReport),
  problems: z.array(ReportProblem),
});
export type ReportList = z.infer<typeof ReportList>;

export const ReportRemoved = z.object({
  id: ReportId,
  name: z.string(),
  file: z.string(),
  removed: z.literal(true),
});
export type ReportRemoved = z.infer<typeof ReportRemoved>;

/** The address of a saved report in the app: the Runs page with the report open. */
export const reportHash = (id: string) => `#/runs/report/${encodeURIComponent(id)}`;

/** Names are compared as people read them: `Seeds` and ` seeds ` are one name. */
export const sameReportName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** An id for a new report named `name`: its words in lower case joined by dashes, numbered past `taken`. */
export function reportIdFor(name: string, taken: ReadonlySet<string>): string {
  const base =
    name
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 56)
      .replace(/-+$/, '') || 'report';
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}
