/**
 * One task across every run of the lab: each run that holds it, with its policy, attempts and outcomes,
 * newest first (the Tasks page's history). Read from the run folders; unreadable runs are skipped.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TaskRunHistory } from '../../domain/runs';
import { runsDir } from './library';
import { RunStore } from './store';

export function taskHistory(dataDir: string, taskId: string): TaskRunHistory[] {
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
        if (!config.tasks.some((t) => t.id === taskId)) continue;
        const episodes = store.finished().filter((e) => e.taskId === taskId);
        out.push({
          runId: name,
          createdAt: store.manifest.createdAt,
          policy: config.policy,
          suite: config.suite,
          attempts: config.attempts,
          episodes: episodes
            .sort((a, b) => a.attempt - b.attempt)
            .map((e) => ({ key: e.key, attempt: e.attempt, resolved: e.resolved, fraction: e.reward?.fraction ?? null, turns: e.turns, stopReason: e.stopReason, durationMs: e.durationMs })),
        });
      }
    } catch {
      // not a readable run: skipped
    }
  }
  return out.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
