/**
 * The Training page's reading side: training runs listed from the data folder, their metric series
 * (decimated, smoothed over every point) and live rows, rollouts token by token, checkpoints, and two
 * eval runs compared. Control (start, pause, resume, stop) is the trainer's part of the contract.
 */
import { z } from 'zod';
import { defineContract, method } from '../define';
import { DEFAULT_MIN_RISE, DenseGuard } from '../../../domain/dense-guard';
import { RunId } from '../../../domain/runs';
import { MetricRowSchema, RunSeries } from '../../../domain/training-metrics';
import {
  HeldOutPoint,
  RolloutEpisodeFiles,
  RolloutStep,
  RolloutView,
  RunComparison,
  TrainingCheckpoint,
  TrainingRunDetails,
  TrainingRunState,
  TrainingRunSummary,
} from '../../../domain/training-view';

/** Points per series sent to a chart: enough for a 4k-wide screen at two points (min, max) per pixel pair. */
export const DEFAULT_MAX_POINTS = 2000;

export const trainingViewContract = defineContract({
  methods: {
    'training.runs': method(
      z.object({}),
      z.array(TrainingRunSummary),
      'List the training runs in the lab data folder (the app’s and the CLI’s), newest first.',
    ),
    'training.series': method(
      z.object({
        runId: RunId,
        keys: z.array(z.string().max(200)).max(500).optional(),
        maxPoints: z.number().int().min(16).max(50_000).default(DEFAULT_MAX_POINTS),
        smoothing: z.number().min(0).max(0.999).default(0.6),
      }),
      RunSeries,
      "A run's metric series from metrics.jsonl: EMA over every point, then min/max decimated to maxPoints.",
    ),
    'training.follow': method(
      z.object({ runIds: z.array(RunId).max(32) }),
      z.object({ following: z.array(z.string()) }),
      "Follow these runs' metrics.jsonl: new rows arrive as training.rows events (replaces the previous set).",
    ),
    'training.rolloutSteps': method(
      z.object({ runId: RunId }),
      z.object({ steps: z.array(z.number().int()) }),
      'The steps of a PPO run that have rollouts.',
    ),
    'training.rollouts': method(
      z.object({ runId: RunId, step: z.number().int().min(0) }),
      RolloutStep,
      "A step's episodes: task, category, reward, resolved, turns, tokens, aborted.",
    ),
    'training.rollout': method(
      z.object({ runId: RunId, step: z.number().int().min(0), key: z.string().min(1).max(600) }),
      RolloutView,
      'One rollout token by token: log-prob, advantage, value, TIS weight, loss mask, experts, ledger events.',
    ),
    'training.rolloutEpisode': method(
      z.object({ runId: RunId, step: z.number().int().min(0), key: z.string().min(1).max(600) }),
      RolloutEpisodeFiles,
      "A rollout's episode folder: the verifier's verdict per assertion, its output, whether a recording is kept.",
    ),
    'training.rolloutRecording': method(
      z.object({ runId: RunId, step: z.number().int().min(0), key: z.string().min(1).max(600) }),
      z.object({ cast: z.string(), truncated: z.boolean() }),
      "A rollout's terminal recording (asciicast v2).",
    ),
    'training.details': method(
      z.object({ runId: RunId }),
      TrainingRunDetails,
      "A training run's config (as TOML and as flat hyperparameters), provenance, and the tails of its log and metrics.",
    ),
    'training.heldOut': method(
      z.object({ runId: RunId }),
      z.array(HeldOutPoint),
      "The run's checkpoints evaluated on suites (eval runs whose policy is one of them): resolved rate and 95% interval by step.",
    ),
    'training.guard': method(
      z.object({ runId: RunId, minRise: z.number().min(0).max(1).default(DEFAULT_MIN_RISE) }),
      DenseGuard,
      "A PPO run's dense-reward guard: per-assertion pass rates over its steps, dense vs binary reward per category, and the assertions whose pass rate rose while the binary reward did not.",
    ),
    'training.checkpoints': method(
      z.object({ runId: RunId }),
      z.array(TrainingCheckpoint),
      "A run's checkpoints and the eval runs of each.",
    ),
    'training.checkConfig': method(
      z.object({
        stage: z.enum(['lm', 'sft', 'ppo']),
        configToml: z.string().max(1_000_000),
        overrides: z
          .object({
            model: z.string().optional(),
            data: z.string().optional(),
            steps: z.number().int().positive().optional(),
            seed: z.number().int().nonnegative().optional(),
            checkpointEvery: z.number().int().positive().optional(),
          })
          .default({}),
      }),
      z.object({ ok: z.boolean(), errors: z.array(z.object({ key: z.string(), message: z.string() })) }),
      'Validate a run config as the trainer will (each error names its key), without starting anything.',
    ),
    'training.compare': method(
      z.object({ a: RunId, b: RunId }),
      RunComparison,
      'Two eval runs side by side: per task, per category, the paired test when available.',
    ),
  },
  events: {
    'training.rows': z.object({ runId: z.string(), fromRow: z.number().int(), rows: z.array(MetricRowSchema) }),
    /** A run left the running state (done, failed, stopped): the page refreshes, the app notifies. */
    'training.ended': z.object({
      runId: z.string(),
      stage: z.string(),
      state: TrainingRunState,
      step: z.number().int(),
      message: z.string().nullable(),
    }),
  },
});
