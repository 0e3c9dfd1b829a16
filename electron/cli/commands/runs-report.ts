/**
 * `t1lab runs report RUN... --out FILE`: the Runs page's report from a shell. Evaluation runs give the
 * resolved-rate chart and the runs table, training runs a chart per `--metric` by step (`--pool-seeds`:
 * runs that differ only in seed as their mean over a min..max band); `--notes` is a Markdown file. The
 * file is the page's export (electron/domain/report-html.ts), one HTML file that opens offline. `--save NAME`
 * keeps the report under a name in the data folder (the Runs page lists it; `t1lab runs reports`), and
 * `--saved NAME` writes a saved report with its runs and settings (options given override its own).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { labDataDir } from '../../lab/paths';
import { describeRun } from '../../lab/runs/library';
import { describeTrainingRun, VIEW_FILES } from '../../lab/training/view-runs';
import { lastMetricRow } from '../../lab/training/metrics-tail';
import { SeriesStore } from '../../lab/training/series-store';
import { seriesView } from '../../lab/training/series-view';
import { reportHtml } from '../../domain/report-html';
import { reportCharts, type ReportTrainingRun } from '../../domain/report-chart';
import type { RunListing } from '../../domain/runs';
import { RUN_ARG_HELP, runArg } from './run-arg';
import { locateRun, type LocatedRun } from '../../lab/runs/meta';
import { createReport, findReport, reportFile } from '../../lab/runs/reports';
import { reportHash, type ReportContent, type SavedReport } from '../../domain/reports';
import { UsageError } from '../errors';
import { printJson, type Io } from '../output';

/** Points per series in a report chart (as the page's report draws them). */
const REPORT_POINTS = 500;
const DEFAULT_METRICS = ['reward_dense', 'resolved'];

interface ReportOptions {
  out?: string;
  title?: string;
  notes?: string;
  metric?: string[];
  poolSeeds?: boolean;
  column?: string[];
  save?: string;
  saved?: string;
  json?: boolean;
}

const DEFAULT_TITLE = 'Evaluation report';

/** What a report shows, from the command line or from a saved report. */
interface ReportRequest {
  title: string;
  notes: string;
  runs: LocatedRun[];
  metrics: string[];
  poolSeeds: boolean;
  columns: string[];
}

/** The runs a saved report names (ids of the data folder); a run removed since is left out and named. */
function savedRuns(dataDir: string, report: SavedReport, io: Io): { runs: LocatedRun[]; missing: string[] } {
  const runs: LocatedRun[] = [];
  const missing: string[] = [];
  for (const id of [...report.evalRuns, ...report.trainingRuns]) {
    try {
      runs.push({ runId: id, ...locateRun(dataDir, id) });
    } catch (error) {
      missing.push(id);
      io.err(`t1lab: report '${report.name}': left out: ${(error as Error).message}\n`);
    }
  }
  return { runs, missing };
}

/** A report's content to save: the runs must be runs of the data folder (the pages name runs by id). */
function contentToSave(dataDir: string, request: ReportRequest): ReportContent {
  for (const run of request.runs) {
    let inData: string | null = null;
    try {
      inData = locateRun(dataDir, run.runId).dir;
    } catch {
      // not in the data folder
    }
    if (inData !== run.dir)
      throw new UsageError(
        `--save: ${run.dir} is not a run of the data folder (${dataDir}); a saved report names runs by id`,
      );
  }
  return {
    title: request.title,
    notes: request.notes,
    evalRuns: request.runs.filter((r) => r.kind === 'eval').map((r) => r.runId),
    trainingRuns: request.runs.filter((r) => r.kind === 'training').map((r) => r.runId),
    metrics: request.metrics,
    poolSeeds: request.poolSeeds,
    columns: request.columns,
  };
}

function writeReport(out: string, request: ReportRequest) {
  const evalRuns: RunListing[] = [];
  const training: ReportTrainingRun[] = [];
  for (const run of request.runs) {
    if (run.kind === 'eval') {
      const listed = describeRun(run.dir);
      if (!listed) throw new UsageError(`${run.runId}: not a readable eval run (${run.dir})`);
      evalRuns.push(listed);
    } else {
      const summary = describeTrainingRun(run.runId, run.dir, lastMetricRow(join(run.dir, VIEW_FILES.metrics)));
      const store = new SeriesStore(join(run.dir, VIEW_FILES.metrics));
      store.refresh();
      const { series } = seriesView(run.runId, store, {
        keys: request.metrics,
        maxPoints: REPORT_POINTS,
        smoothing: 0,
      });
      training.push({
        id: run.runId,
        label: summary.name || run.runId,
        ...(summary.settingsKey !== undefined ? { settingsKey: summary.settingsKey } : {}),
        series,
      });
    }
  }
  const charts = reportCharts(training, request.metrics, request.poolSeeds);
  const generatedAt = new Date().toISOString();
  const { title, notes, columns } = request;
  writeFileSync(out, reportHtml({ title, notes, runs: evalRuns, columns, generatedAt, charts }));
  return {
    file: out,
    title,
    generatedAt,
    evalRuns: evalRuns.map((r) => ({
      id: r.id,
      dir: r.dir,
      resolvedRate: r.resolvedRate,
      done: r.done,
      total: r.total,
    })),
    trainingRuns: training.map((t) => t.id),
    charts: charts.map((c) => ({
      metric: c.metric,
      lines: c.lines.map((l) => ({
        label: l.label,
        runs: l.runs,
        points: l.points.length,
        last: l.points.at(-1) ?? null,
      })),
    })),
  };
}

export function registerRunsReport(runs: Command, io: Io): void {
  runs
    .command('report')
    .description(
      "a report of eval and training runs as one HTML file that opens offline (the Runs page's report); --save keeps it under a name, --saved writes a saved one (see `t1lab runs reports`)",
    )
    .argument('[runs...]', RUN_ARG_HELP)
    .option('--out <file>', 'the HTML file to write (needed unless --save)')
    .option('--title <title>', `the report title (default: ${DEFAULT_TITLE}, or the saved report's)`)
    .option('--notes <file>', 'a Markdown file: the report notes')
    .option('--metric <key...>', `training metrics to chart by step (default: ${DEFAULT_METRICS.join(', ')})`)
    .option('--pool-seeds', 'training runs that differ only in seed as one line: mean over a min..max band')
    .option('--column <key...>', 'run fields as extra table columns (config.…, summary.…; see the Runs table)')
    .option('--save <name>', 'save the report under this name (runs by id; the Runs page lists it)')
    .option('--saved <name>', 'write the report saved under this name (or id); no runs are given then')
    .option('--json', 'print what was written (and saved) as JSON')
    .action((refs: string[], opts: ReportOptions) => {
      const dataDir = labDataDir();
      if (!opts.out && !opts.save) throw new UsageError('--out <file> is needed (or --save <name> to save only)');
      let request: ReportRequest;
      let missing: string[] = [];
      if (opts.saved) {
        if (refs.length) throw new UsageError('--saved takes its runs from the saved report: give no runs');
        const report = findReport(dataDir, opts.saved);
        const found = savedRuns(dataDir, report, io);
        missing = found.missing;
        request = {
          title: opts.title ?? report.title,
          notes: opts.notes ? readFileSync(opts.notes, 'utf8') : report.notes,
          runs: found.runs,
          metrics: opts.metric?.length ? opts.metric : report.metrics,
          poolSeeds: opts.poolSeeds ?? report.poolSeeds,
          columns: opts.column ?? report.columns,
        };
      } else {
        if (!refs.length) throw new UsageError('name the runs of the report (or --saved <name>)');
        request = {
          title: opts.title ?? DEFAULT_TITLE,
          notes: opts.notes ? readFileSync(opts.notes, 'utf8') : '',
          runs: refs.map((ref) => runArg(dataDir, ref)),
          metrics: opts.metric?.length ? opts.metric : DEFAULT_METRICS,
          poolSeeds: !!opts.poolSeeds,
          columns: opts.column ?? [],
        };
      }
      const saved = opts.save ? createReport(dataDir, opts.save, contentToSave(dataDir, request)) : null;
      const written = opts.out ? writeReport(resolve(opts.out), request) : null;
      const result = {
        ...(written ?? { file: null, title: request.title }),
        ...(saved
          ? {
              saved: {
                id: saved.id,
                name: saved.name,
                file: reportFile(dataDir, saved.id),
                link: reportHash(saved.id),
              },
            }
          : {}),
        ...(missing.length ? { missing } : {}),
      };
      if (opts.json) return printJson(io, result);
      if (written)
        io.out(
          `wrote ${written.file}: ${written.evalRuns.length} eval run(s), ${written.trainingRuns.length} training run(s), ${written.charts.length} chart(s)\n`,
        );
      if (saved)
        io.out(`saved report '${saved.name}' (${reportFile(dataDir, saved.id)}; open it at ${reportHash(saved.id)})\n`);
    });
}
