/**
 * An eval run folder's episodes as `outcomes.jsonl` lines (domain/outcomes): what `repro`, `ablate` and
 * `t1lab runs outcomes` write so that a comparison can be rerun from committed files alone.
 */
import type { OutcomeLine } from '../../domain/outcomes';
import { readRun } from '../runs/library';
import { episodeCalls } from './valid-calls';

export interface OutcomeSource {
  runDir: string;
  model: string;
  suite: string;
  /** An ablation's training seed; its attempts are numbered after the earlier seeds' (seedIndex · 1000 + attempt). */
  seed?: { value: number; index: number };
}

export function outcomeLines(source: OutcomeSource): OutcomeLine[] {
  const { episodes } = readRun(source.runDir);
  return [...episodes]
    .sort((a, b) => a.taskId.localeCompare(b.taskId) || a.attempt - b.attempt)
    .map((e) => {
      const calls = episodeCalls(source.runDir, e);
      return {
        suite: source.suite,
        model: source.model,
        task: e.taskId,
        family: e.category,
        attempt: source.seed ? source.seed.index * 1000 + e.attempt : e.attempt,
        resolved: e.resolved,
        dense: e.reward?.dense ?? 0,
        validCalls: calls && calls.turns > 0 ? calls.valid / calls.turns : null,
        ...(source.seed ? { seed: source.seed.value } : {}),
      };
    });
}
