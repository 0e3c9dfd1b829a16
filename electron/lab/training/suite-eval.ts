/**
 * A checkpoint evaluated as `onnx:DIR` on (part of) a suite: the SFT stage's periodic eval. The eval run
 * lands in the lab's runs folder like any other, so the Runs page shows it.
 */
import type { OnnxPolicyFactory } from '../../agent/policy';
import { startEvaluation } from '../runs/evaluate';
import { loadTaskSource } from '../tasks';
import type { SuiteEvaluator } from './stages';

export function suiteEvaluator(env: { dataDir: string; onnx: OnnxPolicyFactory; log?: (m: string) => void }): SuiteEvaluator {
  return async (checkpointDir, suite, maxTasks) => {
    let only: string[] | undefined;
    if (maxTasks > 0) only = (await loadTaskSource(suite)).tasks.map((t) => t.id).sort().slice(0, maxTasks);
    const evaluation = await startEvaluation(
      { suite, policy: `onnx:${checkpointDir}`, policySettings: { temperature: 0.7 }, harness: { maxTurns: 30 }, attempts: 1, seed: 0, ...(only ? { only } : {}) },
      { dataDir: env.dataDir, onnx: env.onnx },
      { log: env.log },
    );
    const r = await evaluation.done;
    return { resolvedRate: r.summary.resolvedRate, ci95: r.summary.ci95, tasks: r.summary.tasks, meanReward: r.summary.meanReward };
  };
}
