/**
 * An evaluation's system.jsonl: a real sample of the machine at the start, every interval and at the stop,
 * each line on disk as it is taken (a killed run keeps them), a resumed run appending to the same file
 * after a torn line; read back, summarized, and nothing for a run without the file.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, test } from 'vitest';
import {
  summarizeSystem,
  systemSeriesKeys,
  systemValue,
  type RunSystemSample,
} from '../../../electron/domain/system-samples';
import {
  readSystemLog,
  runSystem,
  startSystemLog,
  SYSTEM_FILE,
  systemSampleMs,
} from '../../../electron/lab/runs/system-log';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-system-log-');
afterAll(() => tmp.remove());

/** A clock that moves one second per reading. */
function fakeClock(start = Date.parse('2026-12-01T10:00:00Z')): () => Date {
  let n = 0;
  return () => new Date(start + 1000 * n++);
}

const lines = (dir: string) => readFileSync(join(dir, SYSTEM_FILE), 'utf8').split('\n').filter(Boolean);

describe('system.jsonl', () => {
  test('a sample at the start, each interval and the stop, each on disk as soon as it is taken', async () => {
    let running = 0;
    const log = startSystemLog(tmp.path, { episodes: () => running, intervalMs: 60, now: fakeClock() });
    await sleep(20);
    // The first sample is written before the run's first interval ends.
    expect(lines(tmp.path)).toHaveLength(1);
    running = 3;
    await sleep(200);
    running = 0;
    await log.stop();
    const samples = readSystemLog(tmp.path);
    expect(samples.length).toBeGreaterThanOrEqual(4);
    expect(samples.map((s) => s.t).slice(0, 3)).toEqual([
      '2026-12-01T10:00:00.000Z',
      '2026-12-01T10:00:01.000Z',
      '2026-12-01T10:00:02.000Z',
    ]);
    expect(samples[0]!.episodes).toBe(0);
    expect(Math.max(...samples.map((s) => s.episodes ?? 0))).toBe(3);
    expect(samples.at(-1)!.episodes).toBe(0);
    for (const s of samples) {
      expect(s.mem_used_gb).toBeGreaterThan(0);
      expect(s.rss_gb).toBeGreaterThan(0);
      expect(s.disk_free_gb).toBeGreaterThan(0);
    }
    // CPU share needs a previous sample: absent on the first only.
    expect(samples[0]!.cpu_percent).toBeUndefined();
    expect(samples.slice(1).every((s) => typeof s.cpu_percent === 'number')).toBe(true);
    // Stopped means stopped: no line after it.
    const count = lines(tmp.path).length;
    await sleep(150);
    expect(lines(tmp.path)).toHaveLength(count);
    await log.stop();
  });

  test('a resumed run appends; a line torn by a kill is skipped and the next starts on its own line', async () => {
    const before = readSystemLog(tmp.path).length;
    appendFileSync(join(tmp.path, SYSTEM_FILE), '{"t":"2026-12-01T10:00:09.000Z","mem_u');
    const log = startSystemLog(tmp.path, {
      episodes: () => 1,
      intervalMs: 10_000,
      now: fakeClock(Date.parse('2026-12-01T11:00:00Z')),
    });
    await log.stop();
    const samples = readSystemLog(tmp.path);
    expect(samples).toHaveLength(before + 2);
    expect(samples.at(-1)!.t).toBe('2026-12-01T11:00:01.000Z');
    const { summary } = runSystem(tmp.path);
    expect(summary).toMatchObject({ samples: before + 2, episodesPeak: 3 });
    expect(summary!.spanS).toBeGreaterThan(3600);
  });

  test('a run without system.jsonl: no samples, no summary', () => {
    expect(runSystem(join(tmp.path, 'nowhere'))).toEqual({ samples: [], summary: null });
  });

  test('T1LAB_SYSTEM_SAMPLE_MS sets the interval (not below 50 ms); 2 s otherwise', () => {
    expect(systemSampleMs({})).toBe(2000);
    expect(systemSampleMs({ T1LAB_SYSTEM_SAMPLE_MS: '200' })).toBe(200);
    expect(systemSampleMs({ T1LAB_SYSTEM_SAMPLE_MS: '1' })).toBe(50);
    expect(systemSampleMs({ T1LAB_SYSTEM_SAMPLE_MS: 'fast' })).toBe(2000);
  });
});

describe('the summary and the charts of samples', () => {
  const samples: RunSystemSample[] = [
    { t: '2026-12-01T10:00:00Z', mem_used_gb: 4, rss_gb: 0.2, disk_free_gb: 50, load1: 0.5, episodes: 0 },
    {
      t: '2026-12-01T10:00:02Z',
      cpu_percent: 80,
      mem_used_gb: 6,
      rss_gb: 0.4,
      disk_free_gb: 49,
      load1: 1.5,
      episodes: 2,
      sandboxes: 2,
      sandboxes_started: 2,
      gpu: [{ util_percent: 90, mem_used_gb: 10, mem_total_gb: 80 }],
    },
    {
      t: '2026-12-01T10:00:04Z',
      cpu_percent: 40,
      mem_used_gb: 5,
      rss_gb: 0.3,
      disk_free_gb: 49.5,
      load1: 1,
      episodes: 1,
      sandboxes: 1,
      sandboxes_started: 1,
      gpu: [{ util_percent: 30, mem_used_gb: 12, mem_total_gb: 80 }],
    },
  ];

  test('mean CPU, peaks of memory, RSS, episodes, sandboxes and GPU, least free disk', () => {
    expect(summarizeSystem(samples)).toEqual({
      samples: 3,
      spanS: 4,
      cpuPercentMean: 60,
      cpuPercentPeak: 80,
      memUsedGbPeak: 6,
      rssGbPeak: 0.4,
      diskFreeGbMin: 49,
      load1Peak: 1.5,
      episodesPeak: 2,
      sandboxesPeak: 2,
      sandboxesStarted: 3,
      gpuUtilPercentMean: 60,
      gpuMemUsedGbPeak: 12,
    });
    expect(summarizeSystem([])).toBeNull();
  });

  test('without a GPU the summary has no GPU fields and the charts no GPU chart', () => {
    const cpuOnly = samples.map(({ gpu: _gpu, ...s }) => s);
    expect(summarizeSystem(cpuOnly)).not.toHaveProperty('gpuUtilPercentMean');
    expect(systemSeriesKeys(cpuOnly).map((k) => k.key)).toEqual([
      'cpu_percent',
      'mem_used_gb',
      'rss_gb',
      'disk_free_gb',
      'load1',
      'episodes',
      'sandboxes',
    ]);
    expect(
      systemSeriesKeys(samples)
        .map((k) => k.key)
        .slice(-2),
    ).toEqual(['gpu.0.util_percent', 'gpu.0.mem_used_gb']);
    expect(systemValue(samples[2]!, 'gpu.0.mem_used_gb')).toBe(12);
    expect(systemValue(samples[0]!, 'gpu.0.mem_used_gb')).toBeUndefined();
  });
});
