/**
 * The machine during an evaluation, beside its results: its system.jsonl (a sample every few seconds: CPU,
 * memory, the runner's RSS, free disk, load, episodes and sandboxes running, each NVIDIA GPU) as the
 * Training page's charts, x by wall time, with a one-line summary. Refreshed while the run runs. A run made
 * before evaluations were sampled says so in a line.
 */
import { useEffect, useState } from 'react';
import type { SeriesPoints } from '../../../../electron/domain/training-metrics';
import {
  systemSeriesKeys,
  systemValue,
  type RunSystemSample,
  type SystemSummary,
} from '../../../../electron/domain/system-samples';
import { getLabApi } from '../../lab/api';
import { MetricChart } from '../training/MetricChart';
import { runColour } from '../training/palette';

/** How often a running evaluation's samples are read again (they come every 2 s). */
const LIVE_REFRESH_MS = 5_000;
/** Shares on a fixed 0-100 axis; the rest scale to their data. */
const PERCENT_KEYS = /percent$/;

interface SystemData {
  samples: RunSystemSample[];
  summary: SystemSummary | null;
}

/** One key's points: x in seconds since the first sample (and the sample's index as step), the value raw and unsmoothed. */
export function systemPoints(samples: readonly RunSystemSample[], key: string): SeriesPoints {
  const t0 = Date.parse(samples[0]?.t ?? '');
  const points: SeriesPoints = { step: [], wall: [], tokens: [], raw: [], ema: [] };
  samples.forEach((s, i) => {
    const v = systemValue(s, key);
    if (v === undefined) return;
    points.step.push(i);
    points.wall.push((Date.parse(s.t) - t0) / 1000);
    points.tokens.push(i);
    points.raw.push(v);
    points.ema.push(v);
  });
  return points;
}

function summaryLine(s: SystemSummary): string {
  const parts = [
    s.cpuPercentMean === null
      ? null
      : `CPU mean ${s.cpuPercentMean.toFixed(0)}% (peak ${s.cpuPercentPeak?.toFixed(0)}%)`,
    `memory peak ${s.memUsedGbPeak.toFixed(1)} GB`,
    `RSS peak ${s.rssGbPeak.toFixed(2)} GB`,
    s.diskFreeGbMin === null ? null : `least free disk ${s.diskFreeGbMin.toFixed(1)} GB`,
    s.episodesPeak === null ? null : `episodes peak ${s.episodesPeak}`,
    s.sandboxesPeak === null ? null : `sandboxes peak ${s.sandboxesPeak}`,
    s.gpuUtilPercentMean === undefined
      ? null
      : `GPU mean ${s.gpuUtilPercentMean.toFixed(0)}%, memory peak ${s.gpuMemUsedGbPeak?.toFixed(1)} GB`,
  ];
  return `${s.samples} samples over ${s.spanS.toFixed(0)} s · ${parts.filter(Boolean).join(' · ')}`;
}

export function RunSystem({ runId, running }: { runId: string; running: boolean }) {
  const [data, setData] = useState<SystemData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [log, setLog] = useState<Record<string, boolean>>({});
  useEffect(() => {
    let live = true;
    const load = () =>
      getLabApi()
        .methods['runs.system']({ runId })
        .then(
          (d) => live && (setData(d), setError(null)),
          (e: Error) => live && setError(e.message),
        );
    void load();
    // While the run runs, new samples arrive; once it stops, one more read gets the last.
    const timer = running ? setInterval(() => void load(), LIVE_REFRESH_MS) : null;
    return () => {
      live = false;
      if (timer) clearInterval(timer);
    };
  }, [runId, running]);

  if (error) return <p className="muted small">System samples could not be read: {error}</p>;
  if (!data) return null;
  if (!data.samples.length)
    return (
      <section className="run-system" data-testid="run-system" data-samples={0}>
        <h3>System</h3>
        <p className="muted small" data-testid="run-system-none">
          No system samples: this run was made before evaluations sampled the machine.
        </p>
      </section>
    );
  const walls = data.samples.map((s) => (Date.parse(s.t) - Date.parse(data.samples[0]!.t)) / 1000);
  const extent = { min: 0, max: Math.max(1, ...walls) };
  return (
    <section className="run-system" data-testid="run-system" data-samples={data.samples.length}>
      <h3>System</h3>
      {data.summary && (
        <p className="muted small" data-testid="run-system-summary">
          {summaryLine(data.summary)}
        </p>
      )}
      <div className="charts">
        {systemSeriesKeys(data.samples).map(({ key, title }) => (
          <MetricChart
            key={key}
            metric={key}
            runs={[
              { runId, colour: runColour(0), points: systemPoints(data.samples, key), label: title, showRaw: false },
            ]}
            xAxis="wall"
            log={log[key] ?? false}
            onLog={(on) => setLog((l) => ({ ...l, [key]: on }))}
            yRange={PERCENT_KEYS.test(key) ? [0, 100] : null}
            xExtent={extent}
          />
        ))}
      </div>
    </section>
  );
}
