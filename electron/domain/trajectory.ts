/**
 * The trajectory of one episode, as plain data: what the policy said, what the harness did with it, what the
 * shell answered, the token ledger of token-level policies, the verifier's verdict and the reward.
 * Saved as `trajectory.json` in the episode folder (Harbor's ATIF is an export of it: agent/trajectory/atif.ts).
 */
import { z } from 'zod';
import { AssertionResult, Reward } from './tasks';

export const TRAJECTORY_SCHEMA = 't1lab.trajectory/1';

/** The agent's tools. `keys` elements that equal a named key (Enter, C-c, Tab, Up...) are that key; others are literal text. */
export const Action = z.discriminatedUnion('tool', [
  z.object({ tool: z.literal('bash'), command: z.string(), timeoutSec: z.number().positive().optional() }),
  z.object({ tool: z.literal('keys'), keys: z.array(z.string()), durationSec: z.number().min(0).optional() }),
  z.object({ tool: z.literal('submit') }),
]);
export type Action = z.infer<typeof Action>;

export const ProtocolName = z.enum(['hermes', 'terminus', 'tools']);
export type ProtocolName = z.infer<typeof ProtocolName>;

/** A tool call as a model wrote it (native function calling, or parsed from Hermes text). */
export const ToolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string() });
export type ToolCall = z.infer<typeof ToolCall>;

export const ChatRole = z.enum(['system', 'user', 'assistant', 'tool']);
export type ChatRole = z.infer<typeof ChatRole>;

export const ChatMessage = z.object({
  role: ChatRole,
  content: z.string(),
  /** Native function calls of an assistant message. */
  toolCalls: z.array(ToolCall).optional(),
  /** The call a `tool` message answers. */
  toolCallId: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const TokenUsage = z.object({
  prompt: z.number().int().min(0),
  completion: z.number().int().min(0),
  cached: z.number().int().min(0).default(0),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

/** What a token-level policy sampled: ids verbatim, their log-probs and (MoE) the top-k experts per layer. */
export const SampledTokens = z.object({
  ids: z.array(z.number().int()),
  logprobs: z.array(z.number()),
  /** routing[token][layer] = top-k expert indices; absent for dense or external models. */
  routing: z.array(z.array(z.array(z.number().int()))).optional(),
});
export type SampledTokens = z.infer<typeof SampledTokens>;

export const FinishReason = z.enum(['stop', 'length', 'tool_calls', 'error', 'scripted']);
export type FinishReason = z.infer<typeof FinishReason>;

export const Execution = z.object({
  action: z.number().int().min(0),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  /** The command waited for typed input on the terminal and was left running (absent: it did not). */
  waitingForInput: z.boolean().optional(),
  durationMs: z.number().min(0),
  /** Chars cut from the middle of the output before it reached the agent. */
  truncatedChars: z.number().int().min(0),
  /** The observation is the screen (a full-screen program runs) rather than new output. */
  screen: z.boolean(),
});
export type Execution = z.infer<typeof Execution>;

export const LedgerVerdict = z.enum(['CLEAN', 'REPAIR', 'FORK']);
export type LedgerVerdict = z.infer<typeof LedgerVerdict>;

export const LedgerCheck = z.object({
  verdict: LedgerVerdict,
  /** First token index where the ledger and the fresh tokenization differ (null when equal). */
  divergenceAt: z.number().int().nullable(),
  /** Divergent tokens on each side (ledger, fresh). */
  ledgerSpan: z.number().int().min(0),
  freshSpan: z.number().int().min(0),
  /** Sampled tokens taken out of the loss by this repair. */
  maskedSampled: z.number().int().min(0),
  /**
   * Whether the verdict changed the ledger's ids. False in exact TITO: the policy continues from the
   * ledger's own ids and the fresh tokenization is only a diagnostic. Absent in older trajectories.
   */
  applied: z.boolean().optional(),
});
export type LedgerCheck = z.infer<typeof LedgerCheck>;

export const Turn = z.object({
  index: z.number().int().min(0),
  startedAt: z.string(),
  /** The assistant message as the policy produced it (text, with reasoning and tool-call markup). */
  text: z.string(),
  toolCalls: z.array(ToolCall).optional(),
  reasoning: z.string().nullable(),
  actions: z.array(Action),
  /** Why the turn did not parse; the agent was told, and the turn counted. */
  parseError: z.string().nullable(),
  /** Exactly what the agent read back. */
  observation: z.string(),
  executions: z.array(Execution),
  usage: TokenUsage,
  costUsd: z.number().nullable(),
  finishReason: FinishReason,
  tokens: SampledTokens.optional(),
  /** The token ledger's check before this turn (token-level policies). */
  ledger: LedgerCheck.optional(),
  timing: z.object({ policyMs: z.number(), envMs: z.number(), harnessMs: z.number() }),
});
export type Turn = z.infer<typeof Turn>;

export const StopReason = z.enum([
  'submitted',
  'max_turns',
  'agent_timeout',
  'context',
  'deadline',
  'cancelled',
  'policy_error',
  'sandbox_error',
]);
export type StopReason = z.infer<typeof StopReason>;

/** `infrastructure`: no engine host could run the episode (`eval --hosts`); left out of a run's statistics. */
export const ErrorKind = z.enum(['policy', 'sandbox', 'verifier', 'timeout', 'infrastructure']);
export type ErrorKind = z.infer<typeof ErrorKind>;

export const EpisodeError = z.object({ kind: ErrorKind, message: z.string() });
export type EpisodeError = z.infer<typeof EpisodeError>;

export const ContextEvent = z.object({
  /** The turn about to be asked for when the strategy applied. */
  turn: z.number().int().min(0),
  strategy: z.enum(['drop-oldest', 'stop']),
  /** Turns (assistant + observation pairs) removed from the conversation, oldest first. */
  droppedTurns: z.array(z.number().int()),
  tokensBefore: z.number().int(),
  tokensAfter: z.number().int(),
  budget: z.number().int(),
});
export type ContextEvent = z.infer<typeof ContextEvent>;

export const SegmentKind = z.enum(['prompt', 'sampled', 'observation', 'template']);
export type SegmentKind = z.infer<typeof SegmentKind>;

/** One turn as the sampler saw it: the prompt it was fed (length + sha1 of the ids) and what it sampled. */
export const FedTurn = z.object({
  promptLength: z.number().int().min(0),
  promptHash: z.string(),
  sampled: z.array(z.number().int()),
});
export type FedTurn = z.infer<typeof FedTurn>;

/** One training sample of the ledger: the exact ids, their loss mask and where each segment lies. */
export const LedgerSample = z.object({
  ids: z.array(z.number().int()),
  /** 1 = sampled by the policy (trained on), 0 = prompt, observation, template or repaired. */
  mask: z.array(z.union([z.literal(0), z.literal(1)])),
  /** Sampler log-probs aligned with ids (null where not sampled). */
  logprobs: z.array(z.number().nullable()),
  segments: z.array(z.object({ kind: SegmentKind, start: z.number().int(), length: z.number().int() })),
  /**
   * The sampler's routing (per layer, the top-k experts) of every token it processed, aligned with ids: the
   * prompt's as prefilled (across the prefix KV cache), sampled tokens' as decoded; null where the sampler
   * never processed the token (text after the last turn). Absent when none was recorded.
   */
  routing: z.array(z.array(z.array(z.number().int())).nullable()).optional(),
  /**
   * What the sampler was actually fed, per turn of this sample (the independent record the loss-drift check
   * replays): the prompt's length and a hash of its ids, and the ids it sampled after it.
   */
  fed: z.array(FedTurn).optional(),
});
export type LedgerSample = z.infer<typeof LedgerSample>;

export const LedgerCounters = z.object({
  clean: z.number().int(),
  repair: z.number().int(),
  fork: z.number().int(),
  /** Sampled tokens masked out of the loss by repairs. */
  maskedSampled: z.number().int(),
  /**
   * Loss-masked-in positions of the closed samples that do not reproduce what the sampler was fed (its prompt
   * before the token, or the token itself), checked against the `fed` record: must stay 0.
   */
  lossDrift: z.number().int(),
  /** Turns the policy continued from the ledger's own ids (exact TITO); CLEAN/REPAIR/FORK are then a diagnostic. */
  exact: z.number().int().optional(),
  /** Times the ledger's ids were replaced by a fresh tokenization (an applied REPAIR or FORK). */
  retokenized: z.number().int().optional(),
});
export type LedgerCounters = z.infer<typeof LedgerCounters>;

/**
 * Where the verifier's time went: workspace snapshot and test files (setup), its sandboxed steps (each
 * step's sandbox start, pytest start-up and the tests themselves), reading and parsing the reports, and
 * copying the logs into the episode folder.
 */
export const VerifierTimings = z.object({
  setupMs: z.number(),
  stepsMs: z.number(),
  reportsMs: z.number(),
  keepLogsMs: z.number(),
});
export type VerifierTimings = z.infer<typeof VerifierTimings>;

/** The verifier's verdict as the trajectory keeps it (the task layer's VerifierResult without step outputs). */
export const VerifierOutcome = z.object({
  /** 'error': the verifier itself crashed or timed out (its output is in the episode's verifier/ folder). */
  status: z.enum(['ok', 'error']),
  error: z.string().nullable(),
  assertions: z.array(AssertionResult),
  passed: z.number().int(),
  total: z.number().int(),
  source: z.string(),
  notes: z.array(z.string()),
  durationMs: z.number(),
  timings: VerifierTimings.optional(),
});
export type VerifierOutcome = z.infer<typeof VerifierOutcome>;

export const Trajectory = z.object({
  schema: z.literal(TRAJECTORY_SCHEMA),
  id: z.string(),
  task: z.object({ id: z.string(), category: z.string(), difficulty: z.string() }),
  policy: z.object({ id: z.string(), protocol: ProtocolName, model: z.string().nullable() }),
  startedAt: z.string(),
  endedAt: z.string(),
  durationMs: z.number(),
  /** The conversation's fixed head. */
  system: z.string(),
  instruction: z.string(),
  turns: z.array(Turn),
  stopReason: StopReason,
  error: EpisodeError.nullable(),
  contextEvents: z.array(ContextEvent),
  ledger: z.object({ samples: z.array(LedgerSample), counters: LedgerCounters }).nullable(),
  verifier: VerifierOutcome.nullable(),
  /** The episode's phases in ms (absent in older trajectories): workspace set-up, the first shell's start, the agent loop, closing the shells, verification, removing the temp folder. */
  phases: z
    .object({
      setupMs: z.number(),
      shellStartMs: z.number(),
      agentMs: z.number(),
      closeMs: z.number(),
      verifyMs: z.number(),
      cleanupMs: z.number(),
    })
    .optional(),
  reward: Reward.nullable(),
  resolved: z.boolean(),
  tokens: z.object({ prompt: z.number().int(), completion: z.number().int() }),
  costUsd: z.number().nullable(),
});
export type Trajectory = z.infer<typeof Trajectory>;
