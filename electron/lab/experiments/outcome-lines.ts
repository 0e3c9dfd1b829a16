/**
 * An eval run folder's episodes as `outcomes.jsonl` lines (domain/outcomes): what `repro`, `ablate` and
 * `t1lab runs outcomes` write so that a comparison can be rerun from committed files alone.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import type { OutcomeLine } from '../../domain/outcomes';
import { taskFamily } from '../runs/feasibility';
import { readRun } from '../runs/library';
import { parsePackLine } from '../tasks/pack';
import { episodeCalls } from './valid-calls';

export interface OutcomeSource {
  runDir: string;
  model: string;
  suite: string;
  /** An ablation's training seed; its attempts are numbered after the earlier seeds' (seedIndex · 1000 + attempt). */
  seed?: { value: number; index: number };
}

export function outcomeLines(source: OutcomeSource): OutcomeLine[] {
  const { manifest, episodes } = readRun(source.runDir);
  const families = packFamilies(manifest.config.suite);
  return [...episodes]
    .sort((a, b) => a.taskId.localeCompare(b.taskId) || a.attempt - b.attempt)
    .map((e) => {
      const calls = episodeCalls(source.runDir, e);
      return {
        suite: source.suite,
        model: source.model,
        task: e.taskId,
        family: families.get(e.taskId) ?? e.category,
        attempt: source.seed ? source.seed.index * 1000 + e.attempt : e.attempt,
        resolved: e.resolved,
        dense: e.reward?.dense ?? 0,
        validCalls: calls && calls.turns > 0 ? calls.valid / calls.turns : null,
        ...(source.seed ? { seed: source.seed.value } : {}),
      };
    });
}

const familiesByPack = new Map<string, Map<string, string>>();

/**
 * Task id -> family of a pack's synthesized tasks ([metadata] family; a task without one: its category),
 * read once per pack. Empty where the suite is a folder or no longer there: lines then carry the episode's
 * category, which is also the family of a task that names none.
 */
function packFamilies(suite: string | undefined): Map<string, string> {
  if (!suite || !suite.endsWith('.jsonl') || !existsSync(suite) || !statSync(suite).isFile()) return new Map();
  const cached = familiesByPack.get(suite);
  if (cached) return cached;
  const families = new Map<string, string>();
  readFileSync(suite, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      const { task } = parsePackLine(suite, i + 1, text);
      if (task) families.set(task.id, taskFamily(task));
    });
  familiesByPack.set(suite, families);
  return families;
}
