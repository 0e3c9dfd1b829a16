/**
 * How often a model writes a tool call the harness can run: per evaluation turn, the reply parsed and held
 * an action (a bash command or submit). At nano scale this moves long before anything resolves, so the
 * reproduction's table shows it per model and compares it pairwise (issue 21: "SFT writes a valid tool call
 * in >= 90% of eval turns").
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EpisodeRecord } from '../../domain/runs';
import { EPISODE_FILES } from '../runs/episode-files';
import { pairedBootstrap } from '../stats/compare';

export interface TaskCalls {
  turns: number;
  valid: number;
}

interface TurnFile {
  parseError?: string | null;
  actions?: unknown[];
}

/** One episode's turns and those that held a valid tool call; null without a trajectory (a sandbox that never started). */
export function episodeCalls(runDir: string, e: EpisodeRecord): TaskCalls | null {
  const file = join(runDir, e.dir, EPISODE_FILES.trajectory);
  if (!existsSync(file)) return null;
  let turns: TurnFile[];
  try {
    turns = (JSON.parse(readFileSync(file, 'utf8')) as { turns?: TurnFile[] }).turns ?? [];
  } catch (error) {
    throw new Error(`${file}: not a readable trajectory (${(error as Error).message})`, { cause: error });
  }
  return {
    turns: turns.length,
    valid: turns.filter((turn) => (turn.parseError ?? null) === null && (turn.actions?.length ?? 0) > 0).length,
  };
}

/** Per task of an eval run: its episodes' turns, and those that held a valid tool call. */
export function validCallsByTask(runDir: string, episodes: readonly EpisodeRecord[]): Map<string, TaskCalls> {
  const out = new Map<string, TaskCalls>();
  for (const e of episodes) {
    const calls = episodeCalls(runDir, e);
    if (!calls) continue;
    const t = out.get(e.taskId) ?? { turns: 0, valid: 0 };
    t.turns += calls.turns;
    t.valid += calls.valid;
    out.set(e.taskId, t);
  }
  return out;
}

/** Valid turns over all turns (null without turns). */
export function validCallShare(byTask: ReadonlyMap<string, TaskCalls>): number | null {
  let turns = 0;
  let valid = 0;
  for (const t of byTask.values()) {
    turns += t.turns;
    valid += t.valid;
  }
  return turns ? valid / turns : null;
}

/**
 * b's share minus a's, over the tasks where both models took turns, with a paired bootstrap interval over
 * tasks (each task's share is one observation, so a long episode does not outweigh the others).
 */
export function compareValidCalls(
  a: ReadonlyMap<string, TaskCalls>,
  b: ReadonlyMap<string, TaskCalls>,
  seed = 1,
): { diff: number; ci95: [number, number]; tasks: number } | null {
  const diffs: number[] = [];
  for (const [task, x] of a) {
    const y = b.get(task);
    if (!y || !x.turns || !y.turns) continue;
    diffs.push(y.valid / y.turns - x.valid / x.turns);
  }
  if (!diffs.length) return null;
  return {
    diff: diffs.reduce((s, d) => s + d, 0) / diffs.length,
    ci95: pairedBootstrap(diffs, 2000, seed),
    tasks: diffs.length,
  };
}
