/**
 * Evaluation runs as plain data: the run's manifest (run.json), one record per finished episode
 * (episodes.jsonl), the results (`t1lab eval --json`, summary.json, the Runs page) and the live progress.
 */
import { z } from 'zod';
import { Reward } from './tasks';
import { EpisodeError, ProtocolName, StopReason } from './trajectory';
import { DEFAULT_HARNESS, EVAL_DEFAULTS } from './eval-defaults';
import { RunFields } from './run-fields';

export const RUN_SCHEMA = 't1lab.run/1';

export const PolicySettings = z.object({
  protocol: ProtocolName.optional(),
  temperature: z.number().min(0).max(2).optional(),
  seed: z.number().int().optional(),
  maxTokens: z.number().int().positive().optional(),
  contextWindow: z.number().int().positive().optional(),
  apiKeyEnv: z.string().optional(),
  prices: z
    .object({
      inputPerMTok: z.number().min(0),
      outputPerMTok: z.number().min(0),
      cachedPerMTok: z.number().min(0).optional(),
    })
    .optional(),
});
export type PolicySettings = z.infer<typeof PolicySettings>;

export const HarnessSettings = z.object({
  maxTurns: z.number().int().positive().default(EVAL_DEFAULTS.maxTurns),
  contextStrategy: z.enum(['drop-oldest', 'stop']).default(EVAL_DEFAULTS.contextStrategy),
  /** Observation budget in characters (head and tail kept). */
  observationChars: z.number().int().positive().default(EVAL_DEFAULTS.observationChars),
  /** Agent time budget; default: the task's [agent].timeout_sec. */
  agentTimeoutSec: z.number().positive().optional(),
  /** Token-level policies: continue from the ledger's own ids (exact) or from a fresh tokenization. */
  tito: z.enum(['exact', 'retokenize']).optional(),
});
export type HarnessSettings = z.infer<typeof HarnessSettings>;

/** A task of the suite that could not run, and why (it counts as unresolved, under `errors`). */
export const SkippedTask = z.object({ task: z.string(), reason: z.string() });
export type SkippedTask = z.infer<typeof SkippedTask>;

/** How a run used containers (additive in run.json): the switches and, per task, the backend and image. */
export const RunContainers = z.object({
  backend: z.enum(['auto', 'bubblewrap', 'podman', 'docker']),
  engine: z.enum(['podman', 'docker']),
  /** The agent's network for the run (tasks with allow_internet have it regardless). */
  network: z.boolean(),
  baseImages: z.record(z.string(), z.string()),
  /** The engine hosts the container episodes ran on (`eval --hosts`), by name; a resume uses them again unless told otherwise (additive). */
  hosts: z.array(z.string()).optional(),
  tasks: z.record(
    z.string(),
    z.object({
      backend: z.string(),
      network: z.boolean(),
      image: z.string().nullable(),
      imageSource: z.string().nullable(),
      substitutions: z.array(z.object({ from: z.string(), to: z.string(), why: z.string() })),
    }),
  ),
});
export type RunContainers = z.infer<typeof RunContainers>;

/** The settings of an evaluation run (`t1lab eval`/`run`, run.json's `config`); a training run's TOML is TrainingRunConfig. */
export const EvalRunConfig = z.object({
  kind: z.enum(['eval', 'run']),
  /** The suite as given (a task folder, a folder of tasks, or a pack), resolved to an absolute path. */
  suite: z.string(),
  policy: z.string(),
  policySettings: PolicySettings,
  harness: HarnessSettings,
  attempts: z.number().int().positive(),
  concurrency: z.number().int().positive(),
  /** Hard wall-clock limit per episode (set-up, agent, verifier); stragglers are cut there and counted. */
  episodeDeadlineSec: z.number().positive().nullable(),
  seed: z.number().int(),
  /** The tasks of the run, fixed at creation: a resume runs exactly these. */
  tasks: z.array(z.object({ id: z.string(), category: z.string(), difficulty: z.string() })),
  /** Backends and images used (additive). */
  containers: RunContainers.optional(),
  /** Tasks of the suite that could not run (additive; they are in `tasks` and in the denominator). */
  skipped: z.array(SkippedTask).optional(),
  /** The task ids the run was restricted to (additive; `--only`, "evaluate this task"), else absent: the whole suite. */
  only: z.array(z.string()).optional(),
});
export type EvalRunConfig = z.infer<typeof EvalRunConfig>;

/**
 * How many of a run's tasks the oracle itself can finish at the run's budget (turns x tokens per turn, in
 * the policy's tokenizer; `t1lab tasks feasible`). Token-level policies only.
 */
export const RunFeasibility = z.object({
  tasks: z.number().int(),
  feasible: z.number().int(),
  share: z.number(),
  maxTurns: z.number().int(),
  maxTokens: z.number().int(),
  cutCalls: z.object({ count: z.number().int(), calls: z.number().int(), share: z.number() }),
});
export type RunFeasibility = z.infer<typeof RunFeasibility>;

export const RunManifest = z.object({
  schema: z.literal(RUN_SCHEMA),
  id: z.string(),
  createdAt: z.string(),
  config: EvalRunConfig,
  code: z.object({ version: z.string(), commit: z.string().nullable() }),
  host: z.object({ platform: z.string(), cores: z.number().int(), node: z.string() }),
  /** The oracle's feasible share at the run's budget (additive; absent for text policies and older runs). */
  feasibility: RunFeasibility.optional(),
  /** Warnings given when the run started (a budget the oracle cannot meet, ...); additive. */
  warnings: z.array(z.string()).optional(),
});
export type RunManifest = z.infer<typeof RunManifest>;

export const EpisodeRecord = z.object({
  /** `TASK@ATTEMPT`, unique in a run. */
  key: z.string(),
  taskId: z.string(),
  attempt: z.number().int().min(0),
  category: z.string(),
  difficulty: z.string(),
  resolved: z.boolean(),
  reward: Reward.nullable(),
  turns: z.number().int(),
  stopReason: StopReason,
  error: EpisodeError.nullable(),
  tokens: z.object({ prompt: z.number().int(), completion: z.number().int() }),
  costUsd: z.number().nullable(),
  durationMs: z.number(),
  /** The episode's folder, relative to the run folder. */
  dir: z.string(),
  finishedAt: z.string(),
  /** Writing trajectory.json and the ATIF file, ms (absent in older runs). */
  writeMs: z.number().optional(),
  /** The engine host that ran the episode's containers (`eval --hosts`); absent: this machine. */
  host: z.string().optional(),
});
export type EpisodeRecord = z.infer<typeof EpisodeRecord>;

export const GroupStats = z.object({
  tasks: z.number().int(),
  episodes: z.number().int(),
  resolvedRate: z.number(),
  ci95: z.tuple([z.number(), z.number()]),
});
export type GroupStats = z.infer<typeof GroupStats>;

/**
 * avg@K: the mean over tasks of each task's success share (resolved attempts / attempts), with a 95%
 * interval from resampling tasks; `dense` is the same average of the dense reward. With K attempts per
 * task it equals the resolved rate; it is named so because it is what K-sample RL optimizes.
 */
export const AvgAtK = z.object({
  /** The most attempts any task had (the K of avg@K). */
  k: z.number().int(),
  /** The fewest attempts any task had: below k when a run is incomplete. */
  minAttempts: z.number().int(),
  value: z.number(),
  ci95: z.tuple([z.number(), z.number()]),
  dense: z.object({ value: z.number(), ci95: z.tuple([z.number(), z.number()]) }),
});
export type AvgAtK = z.infer<typeof AvgAtK>;

export const ErrorCounts = z.object({
  policy: z.number().int(),
  sandbox: z.number().int(),
  verifier: z.number().int(),
  timeout: z.number().int(),
  /** Episodes no engine host could run (present when any): not in the rates, the rewards or the task counts. */
  infrastructure: z.number().int().optional(),
});
export type ErrorCounts = z.infer<typeof ErrorCounts>;

/** `t1lab eval --json` prints exactly this (issue 5); `ci95Bootstrap` is there when attempts > 1. */
export const EvalSummary = z.object({
  suite: z.string(),
  policy: z.string(),
  tasks: z.number().int(),
  episodes: z.number().int(),
  resolvedRate: z.number(),
  ci95: z.tuple([z.number(), z.number()]),
  ci95Bootstrap: z.tuple([z.number(), z.number()]).optional(),
  meanReward: z.number(),
  passAtK: z.record(z.string(), z.number()),
  /** Absent from summaries written before avg@K was reported. */
  avgAtK: AvgAtK.optional(),
  byCategory: z.record(z.string(), z.object({ tasks: z.number().int(), resolvedRate: z.number() })),
  byDifficulty: z.record(z.string(), z.object({ tasks: z.number().int(), resolvedRate: z.number() })),
  errors: ErrorCounts,
  durationMs: z.number(),
  runDir: z.string(),
  /** Every task that could not run, with the reason (counted unresolved, under errors). */
  skipped: z.array(SkippedTask).optional(),
  /** Warnings given when the run started (a suite the oracle mostly cannot finish at the budget, ...). */
  warnings: z.array(z.string()).optional(),
  /** Caveats on how faithfully tasks ran (a substituted base image, ...); absent when none. */
  fidelity: z.array(z.string()).optional(),
  /** Episodes a resume ran again because they had ended in an infrastructure error; absent when none. */
  rerun: z.number().int().optional(),
});
export type EvalSummary = z.infer<typeof EvalSummary>;

/** `t1lab run TASK --json` prints exactly this (issue 5). */
export const RunEpisodeSummary = z.object({
  task: z.string(),
  resolved: z.boolean(),
  reward: Reward,
  turns: z.number().int(),
  stopReason: StopReason,
  tokens: z.object({ prompt: z.number().int(), completion: z.number().int() }),
  durationMs: z.number(),
  runDir: z.string(),
});
export type RunEpisodeSummary = z.infer<typeof RunEpisodeSummary>;

/** Everything the Runs page shows about results; `EvalSummary` is its CLI subset. */
export const RunStats = z.object({
  tasks: z.number().int(),
  episodes: z.number().int(),
  resolvedRate: z.number(),
  ci95: z.tuple([z.number(), z.number()]),
  ci95Bootstrap: z.tuple([z.number(), z.number()]).nullable(),
  meanReward: z.number(),
  meanFraction: z.number(),
  passAtK: z.record(z.string(), z.number()),
  /** null when no task ran. */
  avgAtK: AvgAtK.nullable(),
  byCategory: z.record(z.string(), GroupStats),
  byDifficulty: z.record(z.string(), GroupStats),
  errors: ErrorCounts,
  stopReasons: z.record(z.string(), z.number().int()),
  tokens: z.object({ prompt: z.number().int(), completion: z.number().int() }),
  costUsd: z.number().nullable(),
});
export type RunStats = z.infer<typeof RunStats>;

export const RunningEpisode = z.object({
  key: z.string(),
  taskId: z.string(),
  attempt: z.number().int(),
  startedAt: z.string(),
  /** Turns taken so far. */
  turns: z.number().int(),
  /** What the agent did last, in a few words (`bash: make test`). */
  lastAction: z.string().nullable(),
});
export type RunningEpisode = z.infer<typeof RunningEpisode>;

export const RunProgress = z.object({
  runId: z.string(),
  runDir: z.string(),
  state: z.enum(['running', 'done', 'cancelled', 'failed']),
  total: z.number().int(),
  done: z.number().int(),
  resolved: z.number().int(),
  /** Episodes cut at the per-episode deadline so far. */
  cut: z.number().int(),
  running: z.array(RunningEpisode),
  message: z.string().nullable(),
});
export type RunProgress = z.infer<typeof RunProgress>;

/** What the Runs page asks for to start an evaluation. */
export const EvalRequest = z.object({
  suite: z.string().min(1),
  policy: z.string().min(1),
  policySettings: PolicySettings.default({}),
  harness: HarnessSettings.default(DEFAULT_HARNESS),
  attempts: z.number().int().min(1).max(100).default(EVAL_DEFAULTS.attempts),
  /** Default: the machine's cores. */
  concurrency: z.number().int().min(1).max(256).optional(),
  /** Default: per task, its agent + verifier timeouts plus a set-up margin. */
  episodeDeadlineSec: z.number().positive().optional(),
  seed: z.number().int().optional(),
  /** Run folder; default: a new folder under the lab's runs/. */
  out: z.string().optional(),
  /**
   * Refuse to start (CONFLICT, details.unfit) when a task's first prompt cannot fit the policy's context
   * window; the Runs page sets it and offers to start anyway. Token-level (onnx:) policies only.
   */
  checkFit: z.boolean().optional(),
  /** Only these task ids of the suite ("evaluate this task" on the Tasks page). */
  only: z.array(z.string().min(1).max(200)).max(5000).optional(),
});
export type EvalRequest = z.input<typeof EvalRequest>;
export type EvalRequestParsed = z.output<typeof EvalRequest>;

export const RunId = z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'a run id is a folder name under the lab runs folder');

export const RunListing = z.object({
  id: z.string(),
  dir: z.string(),
  kind: z.enum(['eval', 'run']),
  suite: z.string(),
  policy: z.string(),
  createdAt: z.string(),
  total: z.number().int(),
  done: z.number().int(),
  resolvedRate: z.number().nullable(),
  /** running: an evaluation works on it now; complete: every episode recorded; incomplete: killed or cancelled. */
  state: z.enum(['running', 'complete', 'incomplete']),
  /** The researcher's name for the run (meta.json), else null. */
  name: z.string().nullable(),
  /** What the list shows: the name, else a readable one made of the policy and the suite (never a cut slug). */
  title: z.string(),
  tags: z.array(z.string()),
  notes: z.string(),
  /** Mean dense and fractional reward over finished episodes. */
  meanReward: z.number().nullable(),
  meanFraction: z.number().nullable(),
  meanTurns: z.number().nullable(),
  /** Prompt + completion tokens of the finished episodes. */
  tokens: z.number().int(),
  /** Wall time: the finished run's, else from creation to its last finished episode. */
  durationMs: z.number().nullable(),
  attempts: z.number().int(),
  seed: z.number().int(),
  maxTurns: z.number().int(),
  temperature: z.number().nullable(),
  /** A checkpoint evaluation: the training run, its stage and the step of the checkpoint. */
  lineage: z.object({ trainingRun: z.string(), stage: z.string().nullable(), step: z.number().int() }).nullable(),
  /** Every setting (`config.…`, flattened) and result (`summary.…`): the table's columns of your choosing. */
  fields: RunFields.optional(),
});
export type RunListing = z.infer<typeof RunListing>;

export const LiveEpisode = z.object({
  key: z.string(),
  taskId: z.string(),
  attempt: z.number().int(),
  /** The last bytes of its terminal (enough to redraw the screen). */
  buffer: z.string(),
});
export type LiveEpisode = z.infer<typeof LiveEpisode>;

/**
 * Which runs a task's pass rate and history are taken over (the Tasks page's filter). Every field is
 * optional: none keeps every run.
 */
export const TaskRunFilter = z.object({
  /** The policy's scheme (`onnx`, `openai`, `replay`, or `oracle`); `!oracle` keeps every policy but the oracle. */
  policy: z.string().max(40).optional(),
  /** The whole policy spec, which names the model (`onnx:/…/checkpoints/step-0000004`). */
  model: z.string().max(4000).optional(),
  /** The suite as the run was given it. */
  suite: z.string().max(4000).optional(),
});
export type TaskRunFilter = z.infer<typeof TaskRunFilter>;

/** The kind of a policy spec: its scheme (`onnx:…` → `onnx`), or the spec itself (`oracle`). */
export function policyKind(policy: string): string {
  const colon = policy.indexOf(':');
  return colon > 0 ? policy.slice(0, colon) : policy;
}

export function matchesTaskRunFilter(run: { policy: string; suite: string }, filter: TaskRunFilter): boolean {
  if (
    filter.policy === '!oracle'
      ? policyKind(run.policy) === 'oracle'
      : filter.policy && policyKind(run.policy) !== filter.policy
  )
    return false;
  if (filter.model && run.policy !== filter.model) return false;
  if (filter.suite && run.suite !== filter.suite) return false;
  return true;
}

/** One run's episodes of one task (the Tasks page's history across runs). */
export const TaskRunHistory = z.object({
  runId: z.string(),
  /** The run's name, else its readable title (as the runs table shows it). */
  title: z.string(),
  createdAt: z.string(),
  policy: z.string(),
  suite: z.string(),
  attempts: z.number().int(),
  episodes: z.array(
    z.object({
      key: z.string(),
      attempt: z.number().int(),
      resolved: z.boolean(),
      fraction: z.number().nullable(),
      turns: z.number().int(),
      stopReason: StopReason,
      durationMs: z.number(),
    }),
  ),
});
export type TaskRunHistory = z.infer<typeof TaskRunHistory>;

/** One task id across every evaluation run of the lab: how often it was attempted and resolved. */
export const TaskPassRate = z.object({
  taskId: z.string(),
  runs: z.number().int(),
  episodes: z.number().int(),
  resolved: z.number().int(),
  /** The newest run that holds an episode of the task. */
  lastRunAt: z.string().nullable(),
});
export type TaskPassRate = z.infer<typeof TaskPassRate>;
