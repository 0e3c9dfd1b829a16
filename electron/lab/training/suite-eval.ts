/**
 * A checkpoint evaluated as `onnx:DIR` on (part of) a suite: the SFT stage's periodic eval. It decodes as
 * every evaluation does (greedy, EVAL_DEFAULTS) so its points sit on the curve with the checkpoints' own
 * evaluations; the held-out table says each point's settings. The eval run lands in the lab's runs folder
 * like any other, so the Runs page shows it.
 */
import type { OnnxPolicyFactory } from '../../agent/policy';
import { startEvaluation } from '../runs/evaluate';
import { loadTaskSource } from '../tasks';
import type { SuiteEvaluator } from './stages';
import { EVAL_DEFAULTS } from '../../domain/eval-defaults';

/** A periodic evaluation is a checkpoint's curve point, not the final figure: a short episode budget keeps it cheap. */
const SFT_EVAL_MAX_TURNS = 30;

export function suiteEvaluator(env: {
  dataDir: string;
  onnx: OnnxPolicyFactory;
  log?: (m: string) => void;
}): SuiteEvaluator {
  return async (checkpointDir, suite, maxTasks) => {
    let only: string[] | undefined;
    if (maxTasks > 0)
      only = (await loadTaskSource(suite)).tasks
        .map((t) => t.id)
        .sort()
        .slice(0, maxTasks);
    const evaluation = await startEvaluation(
      {
        suite,
        policy: `onnx:${checkpointDir}`,
        policySettings: { temperature: EVAL_DEFAULTS.temperature },
        harness: { maxTurns: SFT_EVAL_MAX_TURNS },
        attempts: 1,
        seed: 0,
        ...(only ? { only } : {}),
      },
      { dataDir: env.dataDir, onnx: env.onnx },
      { log: env.log },
    );
    const r = await evaluation.done;
    return {
      resolvedRate: r.summary.resolvedRate,
      ci95: r.summary.ci95,
      tasks: r.summary.tasks,
      meanReward: r.summary.meanReward,
    };
  };
}
