/**
 * Saved reports in the data folder (`reports/ID.json`, one file each): the one store behind the Runs page's
 * report list and `t1lab runs reports`. A file that is not JSON or not a report is reported by its path and
 * field and left as it is: listing shows the others, and no save, rename or id ever writes over it. A name is
 * one report's only (compared ignoring case and surrounding spaces); a duplicate is refused and nothing
 * changes. Writes are atomic (tmp + rename), so a reader never sees half a report.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { LabError } from '../../ipc/common/errors';
import {
  REPORT_SCHEMA,
  REPORTS_FOLDER,
  ReportContent,
  ReportId,
  ReportName,
  reportIdFor,
  SavedReport,
  sameReportName,
  type ReportList,
  type ReportProblem,
  type ReportRemoved,
} from '../../domain/reports';
import { writeFileAtomic } from './store';

export function reportsDir(dataDir: string): string {
  return join(dataDir, REPORTS_FOLDER);
}

const FILE_SUFFIX = '.json';
/** The file of a report's id. */
export const reportFile = (dataDir: string, id: string) => join(reportsDir(dataDir), `${id}${FILE_SUFFIX}`);

/** `field 'x': message` of the first issue of a failed parse. */
function firstIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  return `field '${issue?.path.map(String).join('.') || '(root)'}': ${issue?.message ?? 'invalid'}`;
}

type ReadReport = { ok: true; report: SavedReport } | { ok: false; problem: ReportProblem };

function readReportFile(file: string, id: string): ReadReport {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return { ok: false, problem: { file, message: `${file}: not JSON (${(error as Error).message})` } };
  }
  const parsed = SavedReport.safeParse(raw);
  if (!parsed.success) return { ok: false, problem: { file, message: `${file}: ${firstIssue(parsed.error)}` } };
  if (parsed.data.id !== id)
    return {
      ok: false,
      problem: { file, message: `${file}: field 'id': '${parsed.data.id}' is not the file's name ('${id}')` },
    };
  return { ok: true, report: parsed.data };
}

interface Scan {
  reports: SavedReport[];
  problems: ReportProblem[];
  /** Every id that has a file, readable or not: a new report never takes one. */
  ids: Set<string>;
}

function scan(dataDir: string): Scan {
  const dir = reportsDir(dataDir);
  const out: Scan = { reports: [], problems: [], ids: new Set() };
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir).sort()) {
    if (!entry.endsWith(FILE_SUFFIX)) continue;
    const id = entry.slice(0, -FILE_SUFFIX.length);
    out.ids.add(id);
    const read = readReportFile(join(dir, entry), id);
    if (read.ok) out.reports.push(read.report);
    else out.problems.push(read.problem);
  }
  out.reports.sort((a, b) => a.name.localeCompare(b.name));
  return out;
}

export function listReports(dataDir: string): ReportList {
  const { reports, problems } = scan(dataDir);
  return { dir: reportsDir(dataDir), reports, problems };
}

function parseOr<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new LabError('INVALID_PARAMS', `${what}: ${firstIssue(parsed.error)}`);
}

/** A report by its id; its file's problem when the file cannot be read. */
export function getReport(dataDir: string, id: string): SavedReport {
  const checked = ReportId.safeParse(id);
  if (!checked.success)
    throw new LabError('INVALID_PARAMS', `'${id}' is not a report id (${checked.error.issues[0]?.message})`);
  const file = reportFile(dataDir, id);
  if (!existsSync(file)) throw notFound(dataDir, id);
  const read = readReportFile(file, id);
  if (!read.ok) throw new LabError('INVALID_PARAMS', read.problem.message);
  return read.report;
}

function notFound(dataDir: string, ref: string): LabError {
  const names = scan(dataDir).reports.map((r) => r.name);
  return new LabError(
    'NOT_FOUND',
    `no report '${ref}' in ${reportsDir(dataDir)}${names.length ? ` (saved: ${names.join(', ')})` : ' (none saved)'}`,
  );
}

/** A report by its name (as people type it) or else by its id: how the CLI names one. */
export function findReport(dataDir: string, ref: string): SavedReport {
  const byName = scan(dataDir).reports.find((r) => sameReportName(r.name, ref));
  if (byName) return byName;
  if (ReportId.safeParse(ref).success && existsSync(reportFile(dataDir, ref))) return getReport(dataDir, ref);
  throw notFound(dataDir, ref);
}

function refuseDuplicate(dataDir: string, reports: readonly SavedReport[], name: string, self?: string): void {
  const other = reports.find((r) => r.id !== self && sameReportName(r.name, name));
  if (other)
    throw new LabError(
      'CONFLICT',
      `a report named '${other.name}' exists (${reportFile(dataDir, other.id)}): choose another name, or open it and save over it`,
    );
}

function write(dataDir: string, report: SavedReport): SavedReport {
  mkdirSync(reportsDir(dataDir), { recursive: true });
  writeFileAtomic(reportFile(dataDir, report.id), `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

/** A new report under a name no other report has; its id is made from the name. */
export function createReport(dataDir: string, name: string, content: ReportContent, now = new Date()): SavedReport {
  const cleanName = parseOr(ReportName, name, 'name');
  const cleanContent = parseOr(ReportContent, content, 'report');
  const { reports, ids } = scan(dataDir);
  refuseDuplicate(dataDir, reports, cleanName);
  const at = now.toISOString();
  return write(dataDir, {
    schema: REPORT_SCHEMA,
    id: reportIdFor(cleanName, ids),
    name: cleanName,
    ...cleanContent,
    createdAt: at,
    updatedAt: at,
  });
}

/** Save over a report: its content replaced, its id, name and creation time kept. */
export function updateReport(dataDir: string, id: string, content: ReportContent, now = new Date()): SavedReport {
  const cleanContent = parseOr(ReportContent, content, 'report');
  const old = getReport(dataDir, id);
  return write(dataDir, { ...old, ...cleanContent, updatedAt: now.toISOString() });
}

/** A new name for a report (its id, so its address, stays). */
export function renameReport(dataDir: string, id: string, name: string, now = new Date()): SavedReport {
  const cleanName = parseOr(ReportName, name, 'name');
  const old = getReport(dataDir, id);
  refuseDuplicate(dataDir, scan(dataDir).reports, cleanName, id);
  return write(dataDir, { ...old, name: cleanName, updatedAt: now.toISOString() });
}

/** Delete a report's file (a readable one: an unreadable file is for a person to look at first). */
export function removeReport(dataDir: string, id: string): ReportRemoved {
  const report = getReport(dataDir, id);
  const file = reportFile(dataDir, id);
  unlinkSync(file);
  return { id, name: report.name, file, removed: true };
}
