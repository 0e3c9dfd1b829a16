/**
 * `t1lab runs show RUN [--json] [--samples]`: one run (eval or training) headless: its folder, name and
 * tags, its results summary when it has one, and the machine during it (mean CPU, peak RSS, peak
 * sandboxes, GPU when present) from its system.jsonl (evaluations) or its metrics rows' `sys` (training).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { summarizeSystem, type SystemSummary } from '../../domain/system-samples';
import { labDataDir } from '../../lab/paths';
import { readRunMetaOrEmpty } from '../../lab/runs/meta';
import { readSystemLog, readTrainingSystem, SYSTEM_FILE } from '../../lab/runs/system-log';
import { printJson, type Io } from '../output';
import { RUN_ARG_HELP, runArg } from './run-arg';

const gb = (v: number) => `${v.toFixed(2)} GB`;

/** One line of the machine's summary, or why there is none. */
export function formatSystemSummary(s: SystemSummary | null, kind: 'eval' | 'training'): string {
  if (!s)
    return `system: not sampled (${kind === 'eval' ? `no ${SYSTEM_FILE}: a run made before evaluations sampled the machine` : 'no metrics row with sys'})`;
  const parts = [
    `${s.samples} samples over ${s.spanS.toFixed(0)} s`,
    s.cpuPercentMean === null
      ? null
      : `CPU mean ${s.cpuPercentMean.toFixed(0)}% (peak ${s.cpuPercentPeak?.toFixed(0)}%)`,
    `memory peak ${gb(s.memUsedGbPeak)}`,
    `RSS peak ${gb(s.rssGbPeak)}`,
    s.diskFreeGbMin === null ? null : `least free disk ${gb(s.diskFreeGbMin)}`,
    `load peak ${s.load1Peak.toFixed(2)}`,
    s.episodesPeak === null ? null : `episodes peak ${s.episodesPeak}`,
    s.sandboxesPeak === null ? null : `sandboxes peak ${s.sandboxesPeak} (${s.sandboxesStarted ?? 0} started)`,
    s.gpuUtilPercentMean === undefined
      ? null
      : `GPU mean ${s.gpuUtilPercentMean.toFixed(0)}%, memory peak ${gb(s.gpuMemUsedGbPeak ?? 0)}`,
  ];
  return `system: ${parts.filter(Boolean).join(' · ')}`;
}

function readJsonOrNull(path: string): unknown {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

export function registerRunsShow(runs: Command, io: Io): void {
  runs
    .command('show')
    .description(
      "a run's folder, name, tags, results summary and the machine during it (CPU, memory, RSS, disk, sandboxes, GPU)",
    )
    .argument('<run>', RUN_ARG_HELP)
    .option(
      '--json',
      'print it as JSON: runId, kind, dir, meta, summary (summary.json or null), system {summary, samples with --samples}',
    )
    .option('--samples', 'with --json: every system sample too, not only their summary')
    .action((ref: string, opts: { json?: boolean; samples?: boolean }) => {
      const run = runArg(labDataDir(), ref);
      const samples = run.kind === 'eval' ? readSystemLog(run.dir) : readTrainingSystem(run.dir);
      const system = summarizeSystem(samples);
      const summary =
        run.kind === 'eval'
          ? ((readJsonOrNull(join(run.dir, 'summary.json')) as { summary?: unknown } | null)?.summary ?? null)
          : null;
      const meta = readRunMetaOrEmpty(run.dir);
      if (opts.json)
        return printJson(io, {
          runId: run.runId,
          kind: run.kind,
          dir: run.dir,
          meta,
          summary,
          system: { summary: system, ...(opts.samples ? { samples } : {}) },
        });
      const s = summary as { resolvedRate?: number; episodes?: number; meanReward?: number } | null;
      io.out(
        [
          `${run.runId} (${run.kind})  ${run.dir}`,
          `  name: ${meta.name ?? '—'} · tags: ${meta.tags.join(', ') || '—'}`,
          ...(s && typeof s.resolvedRate === 'number'
            ? [
                `  resolved ${(s.resolvedRate * 100).toFixed(1)}% of ${s.episodes} episodes · mean reward ${s.meanReward?.toFixed(2)}`,
              ]
            : []),
          `  ${formatSystemSummary(system, run.kind)}`,
          '',
        ].join('\n'),
      );
    });
}
