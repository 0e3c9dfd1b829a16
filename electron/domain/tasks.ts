/**
 * The task layer as plain data: problems found while loading, verifier results, rewards, audit results,
 * and what the Tasks page shows. Shared by the CLI (`--json` shapes of issue 4), the host and the renderer.
 */
import { z } from 'zod';

export const Difficulty = z.enum(['easy', 'medium', 'hard']);
export type Difficulty = z.infer<typeof Difficulty>;

/** One thing wrong with a task, located precisely enough to fix it. */
export const TaskProblem = z.object({
  /** The file it is in: a path inside the task (`task.toml`), the task folder, or `pack.jsonl:LINE`. */
  file: z.string(),
  /** The field or entry (`metadata.difficulty`, `files[3].path`), or null when it concerns the whole file. */
  field: z.string().nullable(),
  reason: z.string(),
  /** Errors make the task unusable; warnings are worth fixing but the task still loads. */
  severity: z.enum(['error', 'warning']),
});
export type TaskProblem = z.infer<typeof TaskProblem>;

export const AssertionStatus = z.enum(['passed', 'failed', 'error']);
export type AssertionStatus = z.infer<typeof AssertionStatus>;

export const AssertionResult = z.object({
  name: z.string(),
  status: AssertionStatus,
  /** Why it failed (or a short note); empty when it passed. */
  message: z.string(),
});
export type AssertionResult = z.infer<typeof AssertionResult>;

/** The three rewards, always reported together; which one trains is a training setting. */
export const Reward = z.object({
  /** Number of passed assertions (the paper's reward). */
  dense: z.number(),
  /** Passed / total, 0 when there are none. */
  fraction: z.number(),
  /** 1 when every assertion passed (resolved), else 0. */
  binary: z.number(),
});
export type Reward = z.infer<typeof Reward>;

/** `t1lab verify TASK --workspace DIR --json`: exactly this shape (issue 4). */
export const VerifyReport = z.object({
  task: z.string(),
  assertions: z.array(AssertionResult),
  passed: z.number().int(),
  total: z.number().int(),
  reward: Reward,
  durationMs: z.number(),
});
export type VerifyReport = z.infer<typeof VerifyReport>;

export const AuditVerdict = z.enum(['ok', 'broken-oracle', 'trivial', 'flaky', 'no-oracle', 'invalid', 'error']);
export type AuditVerdict = z.infer<typeof AuditVerdict>;

export const PassCount = z.object({ passed: z.number().int(), total: z.number().int() });
export type PassCount = z.infer<typeof PassCount>;

/** `t1lab tasks audit --json`: one of these per task (issue 4). */
export const AuditResult = z.object({
  id: z.string(),
  /** The oracle's first run, or null when it could not run. */
  oracle: PassCount.nullable(),
  /** The no-op agent's run, or null when it could not run. */
  noop: PassCount.nullable(),
  /** The two oracle runs disagreed on at least one assertion. */
  flaky: z.boolean(),
  verdict: AuditVerdict,
  /** Why this verdict, in words (names the assertions concerned). */
  reason: z.string(),
  /**
   * Guard assertions: ones a no-op agent passes although it does not resolve the task (per-assertion
   * warnings, not a verdict). The dense reward counts passed assertions as reported; a trainer that wants
   * work-only credit subtracts these (additive).
   */
  guards: z.array(z.string()).optional(),
});
export type AuditResult = z.infer<typeof AuditResult>;

export const TaskLayout = z.enum(['harbor', 'tb1']);
export type TaskLayout = z.infer<typeof TaskLayout>;

/** Where a task runs: our sandbox, or only in a container image (with the reason). */
export const TaskRuntime = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sandbox') }),
  z.object({ kind: z.literal('container'), reason: z.string() }),
]);
export type TaskRuntime = z.infer<typeof TaskRuntime>;

/** Which report sources the verifier uses, in the order results are taken. */
export const VerifierKind = z.enum(['test-script', 'pytest', 'inline']);
export type VerifierKind = z.infer<typeof VerifierKind>;

export const TaskSummary = z.object({
  id: z.string(),
  /** The library source it came from (`examples`, a pack file name, a folder name). */
  source: z.string(),
  layout: TaskLayout,
  category: z.string(),
  difficulty: Difficulty.nullable(),
  tags: z.array(z.string()),
  runtime: TaskRuntime,
  verifiers: z.array(VerifierKind),
  hasOracle: z.boolean(),
  /** The first line of the instruction, for lists. */
  title: z.string(),
  /** The task family that wrote it (`[metadata].family` of synthesized tasks), or null. */
  family: z.string().nullable().optional(),
  /** The last audit of this task on this machine, if any. */
  audit: AuditResult.nullable(),
  auditedAt: z.string().nullable(),
});
export type TaskSummary = z.infer<typeof TaskSummary>;

/** A verifier assertion as the task declares it (before anything runs). */
export const DeclaredAssertion = z.object({
  name: z.string(),
  kind: VerifierKind,
  /** The shell check of an inline assertion, or the test's source for pytest tests. */
  detail: z.string(),
});
export type DeclaredAssertion = z.infer<typeof DeclaredAssertion>;

export const TaskDetail = TaskSummary.extend({
  instruction: z.string(),
  assertions: z.array(DeclaredAssertion),
  /** The oracle solution's script, or null. */
  solution: z.string().nullable(),
  /** The test script (tests/test.sh or run-tests.sh), or null. */
  testScript: z.string().nullable(),
  files: z.array(z.object({ path: z.string(), bytes: z.number().int() })),
  agentTimeoutSec: z.number(),
  verifierTimeoutSec: z.number(),
  warnings: z.array(TaskProblem),
});
export type TaskDetail = z.infer<typeof TaskDetail>;

/** Where a library source comes from (task-sources.ts). */
export const TaskSourceKind = z.enum(['examples', 'suite', 'user', 'added', 'run']);
export type TaskSourceKind = z.infer<typeof TaskSourceKind>;

export const TaskListing = z.object({
  tasks: z.array(TaskSummary),
  /** Entries that did not load, each with its problems. */
  invalid: z.array(z.object({ id: z.string(), source: z.string(), problems: z.array(TaskProblem) })),
  sources: z.array(z.object({ label: z.string(), path: z.string(), kind: TaskSourceKind })),
});
export type TaskListing = z.infer<typeof TaskListing>;

/** An audit of one task as the app keeps it: the verdict plus what each run showed. */
export const AuditReport = z.object({
  source: z.string(),
  result: AuditResult,
  /** Per-assertion results of the oracle run, the no-op run and the second oracle run (null when not run). */
  oracle: z.array(AssertionResult).nullable(),
  noop: z.array(AssertionResult).nullable(),
  oracleAgain: z.array(AssertionResult).nullable(),
  durationMs: z.number(),
  at: z.string(),
});
export type AuditReport = z.infer<typeof AuditReport>;

export const TaskRef = z.object({
  /** The library source label (TaskSummary.source). */
  source: z.string().min(1).max(300),
  id: z.string().min(1).max(200),
});
export type TaskRef = z.infer<typeof TaskRef>;

/** Progress of an audit run, streamed while it works. */
export const AuditProgress = z.object({
  auditId: z.string(),
  done: z.number().int(),
  total: z.number().int(),
  /** The task being audited now and its step, or null when finished. */
  current: z.object({ id: z.string(), step: z.string() }).nullable(),
  /** Set once per task as it finishes. */
  report: AuditReport.nullable(),
});
export type AuditProgress = z.infer<typeof AuditProgress>;
