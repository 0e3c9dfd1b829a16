/** Reading runs back from the lab's data folder: the list, one run's results, one episode, its recording. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import type { EpisodeRecord, RunListing, RunManifest, RunStats } from '../../domain/runs';
import { runFields } from '../../domain/run-fields';
import { Trajectory } from '../../domain/trajectory';
import { computeStats } from './stats';
import { RUN_FILES, RunStore, episodeFolder } from './store';
import { evalRunActive, readRunMetaOrEmpty } from './meta';
import { runsDir } from './dirs';
import { checkpointLineage, runTitle } from './lineage';
import { EPISODE_FILES } from './episode-files';
import { hasRecording, readRecordingFile, readVerifierOutput } from './episode-read';

export { runsDir };

/** The folder of a run id; ids are folder names, never paths. */
export function runPath(dataDir: string, runId: string): string {
  const dir = resolve(runsDir(dataDir), runId);
  if (!dir.startsWith(resolve(runsDir(dataDir)) + sep))
    throw new LabError('INVALID_PARAMS', `run id '${runId}' is not a folder name`);
  if (!existsSync(join(dir, 'run.json'))) throw new LabError('NOT_FOUND', `no run '${runId}' in ${runsDir(dataDir)}`);
  return dir;
}

function expected(manifest: RunManifest): number {
  return manifest.config.tasks.length * manifest.config.attempts;
}

export function listRuns(dataDir: string, active: ReadonlySet<string>): RunListing[] {
  const root = runsDir(dataDir);
  if (!existsSync(root)) return [];
  const out: RunListing[] = [];
  for (const name of readdirSync(root)) {
    const listed = describeRun(join(root, name), active.has(name));
    if (listed) out.push(listed);
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** One eval run folder as the list shows it (its id: the folder's name); null for a folder that is not a readable run. */
export function describeRun(dir: string, active = false): RunListing | null {
  const name = basename(dir);
  if (!existsSync(join(dir, 'run.json'))) return null;
  try {
    const store = RunStore.open(dir);
    const episodes = store.finished();
    const total = expected(store.manifest);
    const config = store.manifest.config;
    const meta = readRunMetaOrEmpty(dir);
    const lineage = checkpointLineage(config.policy);
    const mean = (f: (r: EpisodeRecord) => number | null) => {
      const xs = episodes.map(f).filter((x): x is number => x !== null);
      return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
    };
    const listed: RunListing = {
      id: name,
      dir,
      kind: store.manifest.config.kind,
      suite: store.manifest.config.suite,
      policy: store.manifest.config.policy,
      createdAt: store.manifest.createdAt,
      total,
      done: episodes.length,
      resolvedRate: episodes.length ? computeStats(episodes).resolvedRate : null,
      state: active || evalRunActive(dir) ? 'running' : episodes.length >= total ? 'complete' : 'incomplete',
      name: meta.name,
      title: meta.name ?? runTitle(config.policy, config.suite, lineage),
      tags: meta.tags,
      notes: meta.notes,
      meanReward: mean((r) => r.reward?.dense ?? null),
      meanFraction: mean((r) => r.reward?.fraction ?? null),
      meanTurns: mean((r) => r.turns),
      tokens: episodes.reduce((a, r) => a + r.tokens.prompt + r.tokens.completion, 0),
      durationMs: runDuration(dir, store.manifest.createdAt, episodes),
      attempts: config.attempts,
      seed: config.seed,
      maxTurns: config.harness.maxTurns,
      temperature: config.policySettings.temperature ?? null,
      lineage,
    };
    listed.fields = runFields(config as unknown as Record<string, unknown>, {
      episodes: listed.done,
      resolvedRate: listed.resolvedRate,
      meanReward: listed.meanReward,
      meanFraction: listed.meanFraction,
      meanTurns: listed.meanTurns,
      tokens: listed.tokens,
      durationMs: listed.durationMs,
    });
    return listed;
  } catch {
    // a folder that is not a readable run is skipped, not fatal for the list
    return null;
  }
}

/** The finished run's own figure (summary.json), else creation to the last finished episode. */
function runDuration(dir: string, createdAt: string, episodes: readonly EpisodeRecord[]): number | null {
  try {
    const summary = JSON.parse(readFileSync(join(dir, RUN_FILES.summary), 'utf8')) as {
      summary?: { durationMs?: unknown };
    };
    if (typeof summary.summary?.durationMs === 'number') return summary.summary.durationMs;
  } catch {
    // not finished
  }
  if (!episodes.length) return null;
  const last = Math.max(...episodes.map((r) => Date.parse(r.finishedAt)));
  const first = Date.parse(createdAt);
  return Number.isFinite(last) && Number.isFinite(first) ? Math.max(0, last - first) : null;
}

export function readRun(dir: string): { manifest: RunManifest; episodes: EpisodeRecord[]; stats: RunStats } {
  const store = RunStore.open(dir);
  const episodes = store.finished();
  return { manifest: store.manifest, episodes, stats: computeStats(episodes, store.manifest.config.seed) };
}

function episodeDir(dir: string, key: string): { abs: string; record: EpisodeRecord | null } {
  const store = RunStore.open(dir);
  const record = store.finished().find((r) => r.key === key) ?? null;
  const at = key.lastIndexOf('@');
  if (at <= 0) throw new LabError('INVALID_PARAMS', `episode key '${key}' is not TASK@ATTEMPT`);
  const rel = record?.dir ?? episodeFolder(key.slice(0, at), Number(key.slice(at + 1)));
  return { abs: join(dir, rel), record };
}

/** An episode for the UI: routing and ledger samples left out (they can be megabytes); counters kept. */
export function readEpisode(dir: string, key: string) {
  const { abs, record } = episodeDir(dir, key);
  const file = join(abs, EPISODE_FILES.trajectory);
  if (!existsSync(file)) throw new LabError('NOT_FOUND', `episode ${key} has no trajectory yet (${file})`);
  const trajectory = Trajectory.parse(JSON.parse(readFileSync(file, 'utf8')));
  const slim: Trajectory = {
    ...trajectory,
    // Sampled ids and log-probs stay (the viewer shows them per turn); per-token routing is left out.
    turns: trajectory.turns.map(({ tokens, ...turn }) =>
      tokens ? { ...turn, tokens: { ids: tokens.ids, logprobs: tokens.logprobs } } : turn,
    ),
    ledger: trajectory.ledger ? { samples: [], counters: trajectory.ledger.counters } : null,
  };
  return { record, trajectory: slim, verifierOutput: readVerifierOutput(abs), hasRecording: hasRecording(abs) };
}

export function readRecording(dir: string, key: string): { cast: string; truncated: boolean } {
  return readRecordingFile(episodeDir(dir, key).abs, `episode ${key}`);
}
