/**
 * `t1lab runs report RUN... --out FILE`: the Runs page's report from a shell. Evaluation runs give the
 * resolved-rate chart and the runs table, training runs a chart per `--metric` by step (`--pool-seeds`:
 * runs that differ only in seed as their mean over a min..max band); `--notes` is a Markdown file. The
 * file is the page's export (electron/domain/report-html.ts), one HTML file that opens offline.
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
import { UsageError } from '../errors';
import { printJson, type Io } from '../output';

/** Points per series in a report chart (as the page's report draws them). */
const REPORT_POINTS = 500;
const DEFAULT_METRICS = ['reward_dense', 'resolved'];

interface ReportOptions {
  out: string;
  title: string;
  notes?: string;
  metric?: string[];
  poolSeeds?: boolean;
  column?: string[];
  json?: boolean;
}

export function registerRunsReport(runs: Command, io: Io): void {
  runs
    .command('report')
    .description("a report of eval and training runs as one HTML file that opens offline (the Runs page's report)")
    .argument('<runs...>', RUN_ARG_HELP)
    .requiredOption('--out <file>', 'the HTML file to write')
    .option('--title <title>', 'the report title', 'Evaluation report')
    .option('--notes <file>', 'a Markdown file: the report notes')
    .option('--metric <key...>', `training metrics to chart by step (default: ${DEFAULT_METRICS.join(', ')})`)
    .option('--pool-seeds', 'training runs that differ only in seed as one line: mean over a min..max band')
    .option('--column <key...>', 'run fields as extra table columns (config.…, summary.…; see the Runs table)')
    .option('--json', 'print what was written as JSON')
    .action((refs: string[], opts: ReportOptions) => {
      const dataDir = labDataDir();
      const evalRuns: RunListing[] = [];
      const training: ReportTrainingRun[] = [];
      const metrics = opts.metric?.length ? opts.metric : DEFAULT_METRICS;
      for (const ref of refs) {
        const run = runArg(dataDir, ref);
        if (run.kind === 'eval') {
          const listed = describeRun(run.dir);
          if (!listed) throw new UsageError(`${ref}: not a readable eval run (${run.dir})`);
          evalRuns.push(listed);
        } else {
          const summary = describeTrainingRun(run.runId, run.dir, lastMetricRow(join(run.dir, VIEW_FILES.metrics)));
          const store = new SeriesStore(join(run.dir, VIEW_FILES.metrics));
          store.refresh();
          const { series } = seriesView(run.runId, store, { keys: metrics, maxPoints: REPORT_POINTS, smoothing: 0 });
          training.push({
            id: run.runId,
            label: summary.name || run.runId,
            ...(summary.settingsKey !== undefined ? { settingsKey: summary.settingsKey } : {}),
            series,
          });
        }
      }
      const charts = reportCharts(training, metrics, !!opts.poolSeeds);
      const notes = opts.notes ? readFileSync(opts.notes, 'utf8') : '';
      const out = resolve(opts.out);
      const generatedAt = new Date().toISOString();
      writeFileSync(
        out,
        reportHtml({ title: opts.title, notes, runs: evalRuns, columns: opts.column ?? [], generatedAt, charts }),
      );
      const result = {
        file: out,
        title: opts.title,
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
      if (opts.json) return printJson(io, result);
      io.out(
        `wrote ${out}: ${evalRuns.length} eval run(s), ${training.length} training run(s), ${charts.length} chart(s)\n`,
      );
    });
}
