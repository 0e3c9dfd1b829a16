/**
 * One task across every run of the lab: each run that holds it, with its policy, attempts and outcomes,
 * newest first (the Tasks page's history). Read from the run folders; unreadable runs are skipped.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { matchesTaskRunFilter, type TaskPassRate, type TaskRunFilter, type TaskRunHistory } from '../../domain/runs';
import { runsDir } from './library';
import { checkpointLineage, runTitle } from './lineage';
import { readRunMetaOrEmpty } from './meta';
import { RunStore } from './store';

export function taskHistory(dataDir: string, taskId: string, filter: TaskRunFilter = {}): TaskRunHistory[] {
  const root = runsDir(dataDir);
  if (!existsSync(root)) return [];
  const out: TaskRunHistory[] = [];
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    if (!existsSync(join(dir, 'run.json'))) continue;
    try {
      const store = RunStore.open(dir);
      {
        const config = store.manifest.config;
        if (!config.tasks.some((t) => t.id === taskId) || !matchesTaskRunFilter(config, filter)) continue;
        const episodes = store.finished().filter((e) => e.taskId === taskId);
        out.push({
          runId: name,
          title:
            readRunMetaOrEmpty(dir).name ?? runTitle(config.policy, config.suite, checkpointLineage(config.policy)),
          createdAt: store.manifest.createdAt,
          policy: config.policy,
          suite: config.suite,
          attempts: config.attempts,
          episodes: episodes
            .sort((a, b) => a.attempt - b.attempt)
            .map((e) => ({
              key: e.key,
              attempt: e.attempt,
              resolved: e.resolved,
              fraction: e.reward?.fraction ?? null,
              turns: e.turns,
              stopReason: e.stopReason,
              durationMs: e.durationMs,
            })),
        });
      }
    } catch {
      // not a readable run: skipped
    }
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Every task id's attempts and resolved episodes over every readable evaluation run that passes the filter (finished episodes only). */
export function taskPassRates(dataDir: string, filter: TaskRunFilter = {}): TaskPassRate[] {
  const root = runsDir(dataDir);
  if (!existsSync(root)) return [];
  const rates = new Map<string, TaskPassRate>();
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    if (!existsSync(join(dir, 'run.json'))) continue;
    try {
      const store = RunStore.open(dir);
      if (!matchesTaskRunFilter(store.manifest.config, filter)) continue;
      const createdAt = store.manifest.createdAt;
      const seen = new Set<string>();
      for (const e of store.finished()) {
        const r = rates.get(e.taskId) ?? { taskId: e.taskId, runs: 0, episodes: 0, resolved: 0, lastRunAt: null };
        if (!seen.has(e.taskId)) {
          seen.add(e.taskId);
          r.runs += 1;
          if (!r.lastRunAt || createdAt > r.lastRunAt) r.lastRunAt = createdAt;
        }
        r.episodes += 1;
        if (e.resolved) r.resolved += 1;
        rates.set(e.taskId, r);
      }
    } catch {
      // not a readable run: skipped
    }
  }
  return [...rates.values()].sort((a, b) => a.taskId.localeCompare(b.taskId));
}
