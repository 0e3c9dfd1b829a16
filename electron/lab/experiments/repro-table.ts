/** What `t1lab repro` produces (table.json): the rows of the paper's table, the paired tests and the gap. */
import type { ReproFeasibility } from './repro-feasibility';
import type { ReproSettings } from './repro-settings';
import type { SampledRow, SampledTest } from './repro-sampled';
import type { StageTime } from './stage-times';

export interface ReproRow {
  model: 'base' | 'sft' | 'rl-dense' | 'rl-binary';
  suite: string;
  tasks: number;
  resolvedRate: number;
  ci95: [number, number];
  meanReward: number;
  /** Share of the evaluation's turns that held a valid tool call (parsed, with an action); null without turns. */
  validCallShare?: number | null;
  /** The share of the suite (as evaluated) the oracle itself can finish at the evaluations' budget. */
  feasibleShare?: number;
}

export interface ReproTable {
  quick: boolean;
  settings: ReproSettings;
  rows: ReproRow[];
  /** Paired tests on resolved (McNemar) and on mean dense reward (paired bootstrap over tasks). */
  tests: {
    comparison: string;
    suite: string;
    diff: number;
    ci95: [number, number];
    p: number;
    rewardDiff?: number;
    rewardCi95?: [number, number];
    validCallDiff?: number;
    validCallCi95?: [number, number];
  }[];
  /** avg@K of the trained models at PPO's temperature (settings.sampledAttempts > 0), and its paired tests. */
  sampled?: { rows: SampledRow[]; tests: SampledTest[] };
  /** Per eval suite (at the evaluations' budget) and for the train pack (at PPO's): what the oracle can finish. */
  feasibility?: ReproFeasibility[];
  report?: { markdown: string; charts: string[] };
  gap: { r3Tito: number | null; free: number | null; lossDrift: number | null };
  checkpoints: Record<string, string>;
  out: string;
  /** This invocation's wall time (a resumed run skips the stages done before). */
  durationMs: number;
  /** Wall seconds of each stage's processes over every invocation, in the order the stages first ran. */
  stages?: StageTime[];
  /** Their sum: the pipeline's wall time across resumes. */
  wallSeconds?: number;
}
