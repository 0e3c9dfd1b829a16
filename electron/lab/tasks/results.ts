/** What running a task's pieces produces, as plain data: each sandboxed step, and the verifier's result. */
import { z } from 'zod';
import { AssertionResult, Reward, type VerifyReport } from '../../domain/tasks';
import type { RunResult } from '../../../native/sandbox/types';
import { TaskReward } from './reports/reward-file';
import { VerifierTimings } from '../../domain/trajectory';

export const StepResult = z.object({
  /** What ran: 'setup', 'oracle', 'tests/test.sh', 'pytest', 'assertion: NAME'. */
  name: z.string(),
  argv: z.array(z.string()),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  timedOut: z.boolean(),
  /** The sandbox limit that fired, if any. */
  limit: z.string().nullable(),
  durationMs: z.number(),
  stdout: z.string(),
  stderr: z.string(),
});
export type StepResult = z.infer<typeof StepResult>;

export function stepResult(name: string, argv: string[], r: RunResult): StepResult {
  return {
    name,
    argv,
    exitCode: r.exitCode,
    signal: r.signal,
    timedOut: r.timedOut,
    limit: r.limit,
    durationMs: Math.round(r.durationMs),
    stdout: r.stdout,
    stderr: r.stderr,
  };
}

/** A step that did not end by itself: killed by the deadline, a signal or a limit. */
export function stepCrashed(step: StepResult): string | null {
  if (step.timedOut) return `${step.name} timed out`;
  if (step.exitCode === null)
    return `${step.name} was killed${step.signal ? ` by ${step.signal}` : ''}${step.limit ? ` (${step.limit} limit)` : ''}`;
  return null;
}

/** The last `chars` characters of a step's output (stderr after stdout), for error messages. */
export function outputTail(step: Pick<StepResult, 'stdout' | 'stderr'>, chars = 2000): string {
  const text = [step.stdout.trimEnd(), step.stderr.trimEnd()].filter(Boolean).join('\n');
  return text.length > chars ? `…${text.slice(-chars)}` : text;
}

export const VerifierResult = z.object({
  task: z.string(),
  /** In a container: how the tests ran (test.sh as written, converted to run offline, or the lab's pytest); additive. */
  mode: z.enum(['test-sh', 'offline-script', 'pytest']).optional(),
  /** 'error': the verifier itself crashed or timed out; its output is in `steps` and `error`. */
  status: z.enum(['ok', 'error']),
  error: z.string().nullable(),
  assertions: z.array(AssertionResult),
  passed: z.number().int(),
  total: z.number().int(),
  reward: Reward,
  /** The task's own verdict (reward.json / reward.txt), kept beside ours. */
  taskReward: TaskReward.nullable(),
  /** Which report the per-assertion results came from. */
  source: z.enum(['ctrf', 'junit', 'test-script', 'inline', 'none']),
  steps: z.array(StepResult),
  /** What was left out of the workspace snapshot, reports refused, and similar, in words. */
  notes: z.array(z.string()),
  durationMs: z.number(),
  timings: VerifierTimings.optional(),
});
export type VerifierResult = z.infer<typeof VerifierResult>;

/** The `t1lab verify --json` shape (issue 4). */
export function verifyReport(result: VerifierResult): VerifyReport {
  return {
    task: result.task,
    assertions: result.assertions,
    passed: result.passed,
    total: result.total,
    reward: result.reward,
    durationMs: result.durationMs,
  };
}
