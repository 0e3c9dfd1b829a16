/**
 * `t1lab runs reports [list] | show NAME | rename NAME NEW | rm NAME`: the saved reports of the data folder,
 * the same files the Runs page lists (electron/lab/runs/reports.ts). A report is named by its name or its id;
 * `show` prints its runs and settings and its address in the app; `t1lab runs report --saved NAME --out FILE`
 * writes it as HTML. A report file that cannot be read is listed by its path and what is wrong with it.
 */
import type { Command } from 'commander';
import { reportHash, type ReportList, type SavedReport } from '../../domain/reports';
import { labDataDir } from '../../lab/paths';
import { findReport, listReports, removeReport, renameReport, reportFile } from '../../lab/runs/reports';
import { printJson, table, type Io } from '../output';

/** A saved report as the CLI prints it: the report, its file and its address in the app. */
const located = (dataDir: string, r: SavedReport) => ({
  ...r,
  file: reportFile(dataDir, r.id),
  link: reportHash(r.id),
});

function printList(io: Io, list: ReportList): void {
  if (!list.reports.length) io.out(`no saved reports in ${list.dir}\n`);
  else
    io.out(
      table([
        ['name', 'id', 'title', 'eval', 'training', 'updated'],
        ...list.reports.map((r) => [
          r.name,
          r.id,
          r.title || '—',
          r.evalRuns.length,
          r.trainingRuns.length,
          r.updatedAt.slice(0, 19).replace('T', ' '),
        ]),
      ]),
    );
  for (const p of list.problems) io.err(`t1lab: cannot read a report: ${p.message}\n`);
}

function printReport(io: Io, dataDir: string, r: SavedReport): void {
  const list = (xs: readonly string[]) => (xs.length ? xs.join(', ') : '—');
  io.out(
    [
      `${r.name} (${r.id})`,
      `  title:     ${r.title || '—'}`,
      `  eval runs: ${list(r.evalRuns)}`,
      `  training:  ${list(r.trainingRuns)}`,
      `  metrics:   ${list(r.metrics)}${r.poolSeeds ? ' (seeds pooled)' : ''}`,
      `  columns:   ${list(r.columns)}`,
      `  updated:   ${r.updatedAt}`,
      `  file:      ${reportFile(dataDir, r.id)}`,
      `  address:   ${reportHash(r.id)}`,
      ...(r.notes ? ['  notes:', ...r.notes.split('\n').map((l) => `    ${l}`)] : []),
      '',
    ].join('\n'),
  );
}

export function registerRunsReports(runs: Command, io: Io): void {
  const reports = runs
    .command('reports')
    .description(
      'the saved reports (the Runs page lists the same): list, show, rename, rm; save one with `t1lab runs report RUN... --save NAME`',
    );

  reports
    .command('list', { isDefault: true })
    .description('the saved reports by name, and any report file that cannot be read (the default)')
    .option('--json', 'print the list as JSON: {dir, reports, problems}')
    .action((opts: { json?: boolean }) => {
      const found = listReports(labDataDir());
      if (opts.json) return printJson(io, found);
      printList(io, found);
    });

  reports
    .command('show')
    .description("a saved report's runs, settings, notes, file and address in the app")
    .argument('<name>', 'the report name (or its id)')
    .option('--json', 'print the report as JSON')
    .action((name: string, opts: { json?: boolean }) => {
      const dataDir = labDataDir();
      const report = findReport(dataDir, name);
      if (opts.json) return printJson(io, located(dataDir, report));
      printReport(io, dataDir, report);
    });

  reports
    .command('rename')
    .description('rename a saved report (its id and address stay); a name another report has is refused')
    .argument('<name>', 'the report name (or its id)')
    .argument('<new-name>', 'its new name')
    .option('--json', 'print the renamed report as JSON')
    .action((name: string, newName: string, opts: { json?: boolean }) => {
      const dataDir = labDataDir();
      const renamed = renameReport(dataDir, findReport(dataDir, name).id, newName);
      if (opts.json) return printJson(io, located(dataDir, renamed));
      io.out(`renamed report '${name}' to '${renamed.name}' (${reportFile(dataDir, renamed.id)})\n`);
    });

  reports
    .command('rm')
    .description("delete a saved report's file (the runs it names are not touched)")
    .argument('<name>', 'the report name (or its id)')
    .option('--json', 'print what was removed as JSON')
    .action((name: string, opts: { json?: boolean }) => {
      const dataDir = labDataDir();
      const removed = removeReport(dataDir, findReport(dataDir, name).id);
      if (opts.json) return printJson(io, removed);
      io.out(`removed report '${removed.name}' (${removed.file})\n`);
    });
}
