/**
 * A training run's held-out curve: every eval run whose policy is one of the run's checkpoints
 * (`onnx:…/training/<run>/checkpoints/step-N`: the eval run's config names the run and the step), with its
 * resolved rate and 95% Wilson interval over tasks, by step. Checkpoints pruned since their evaluation keep
 * their point: the eval run is the record.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HeldOutPoint } from '../../domain/training-view';
import { evalSettingsText } from '../../domain/eval-command';
import { runsDir } from '../runs/dirs';
import { checkpointLineage } from '../runs/lineage';
import { computeStats } from '../runs/stats';
import { RunStore } from '../runs/store';

export function heldOutPoints(dataDir: string, trainingRun: string): HeldOutPoint[] {
  const root = runsDir(dataDir);
  if (!existsSync(root)) return [];
  const points: HeldOutPoint[] = [];
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    if (!existsSync(join(dir, 'run.json'))) continue;
    let store: RunStore;
    try {
      store = RunStore.open(dir);
    } catch {
      continue; // not a readable run: the Runs page says why
    }
    const config = store.manifest.config;
    const lineage = checkpointLineage(config.policy);
    if (lineage?.trainingRun !== trainingRun) continue;
    const episodes = store.finished();
    if (!episodes.length) continue;
    const stats = computeStats(episodes, config.seed);
    points.push({
      step: lineage.step,
      evalRunId: name,
      suite: config.suite,
      tasks: stats.tasks,
      episodes: episodes.length,
      resolvedRate: stats.resolvedRate,
      ci95: stats.ci95,
      complete: episodes.length >= config.tasks.length * config.attempts,
      settings: evalSettingsText(config),
    });
  }
  return points.sort(
    (a, b) => a.step - b.step || a.suite.localeCompare(b.suite) || a.evalRunId.localeCompare(b.evalRunId),
  );
}
