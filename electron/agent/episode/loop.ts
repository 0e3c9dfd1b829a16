/**
 * The agent loop of one episode, the same for every policy: render the conversation, fit it to the context
 * budget, ask the policy for one assistant turn, parse its action, execute it in the shell, format the
 * observation — until the agent submits, the turn limit, the agent's deadline or the context budget ends it.
 * It owns no sandbox and knows no task format: the lab hands it a shell and an instruction, and afterwards
 * kills the agent's processes and runs the verifier.
 */
import type { ShellSession } from '../../../native/pty/types';
import type { ChatMessage, ContextEvent, EpisodeError, LedgerCounters, LedgerSample, StopReason, Turn } from '../../domain/trajectory';
import { estimatingMeter, exactMeter, fitContext, type ContextMeter, type ContextState, type ContextStrategy } from '../context';
import { DEFAULT_OBSERVATION_CHARS, neutralizeControlTokens } from '../observation';
import type { Policy, PolicyEpisode, PolicyReply } from '../policy/types';
import { createProtocol } from '../protocol';
import { TokenLedger, type TitoMode } from '../tokens/ledger';
import { executeAction } from './execute';

export const DEFAULT_MAX_TURNS = 300;

/** Why the caller aborted the episode (its `signal`'s reason): the stop reason to record. */
export class EpisodeStop extends Error {
  override readonly name = 'EpisodeStop';
  constructor(readonly stopReason: Extract<StopReason, 'cancelled' | 'deadline'>) {
    super(stopReason === 'cancelled' ? 'the episode was cancelled' : 'the episode reached its deadline');
  }
}

export interface AgentLoopOptions {
  policy: Policy;
  session: ShellSession;
  /** Starts a new shell in the same sandbox when the agent's shell exits (e.g. it typed `exit`). */
  restartShell?: () => Promise<ShellSession>;
  taskId: string;
  instruction: string;
  solutionCommands: string[] | null;
  seed: number;
  agentTimeoutSec: number;
  maxTurns?: number;
  contextStrategy?: ContextStrategy;
  observationChars?: number;
  /**
   * Token-level policies: 'exact' (default) continues from the ledger's own ids (sampled ids verbatim, each
   * observation tokenized once); 'retokenize' brings the ledger up to a fresh tokenization before each turn.
   */
  tito?: TitoMode;
  /** Abort with an `EpisodeStop` reason to cancel or cut the episode. */
  signal?: AbortSignal;
  /**
   * Ends the agent's turns as its deadline does (stop reason agent_timeout; the verifier still judges the
   * work): PPO's over-sampling cuts the tail of a rollout batch with it, and still learns the cut episodes' reward.
   */
  agentStop?: AbortSignal;
  onTurn?: (turn: Turn) => void;
}

export interface AgentLoopResult {
  system: string;
  instruction: string;
  turns: Turn[];
  stopReason: StopReason;
  error: EpisodeError | null;
  contextEvents: ContextEvent[];
  ledger: { samples: LedgerSample[]; counters: LedgerCounters } | null;
  tokens: { prompt: number; completion: number };
  costUsd: number | null;
  /** The shell at the end (it may have been restarted). */
  session: ShellSession;
  startedAt: string;
  durationMs: number;
}

/** Why the episode must stop now: the caller aborted it, or the agent's time is up. */
function stopFromSignal(outer: AbortSignal): { stopReason: StopReason; error: EpisodeError | null } {
  const reason: unknown = outer.reason;
  if (outer.aborted && reason instanceof EpisodeStop) {
    return { stopReason: reason.stopReason, error: reason.stopReason === 'deadline' ? { kind: 'timeout', message: reason.message } : null };
  }
  if (outer.aborted) return { stopReason: 'cancelled', error: null };
  return { stopReason: 'agent_timeout', error: { kind: 'timeout', message: 'the agent ran out of time' } };
}

/** The compact system prompt is the policy's choice (the local `onnx:` model with a small window). */
export function compactPrompt(policy: Pick<Policy, 'compactPrompt'>): boolean {
  return policy.compactPrompt === true;
}

export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const { policy } = options;
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const observationChars = options.observationChars ?? DEFAULT_OBSERVATION_CHARS;
  const strategy = options.contextStrategy ?? 'drop-oldest';
  const protocol = createProtocol(policy.protocol);
  const template = policy.tokenLevel?.template ?? policy.template;
  const nativeTools = protocol.name === 'tools' ? protocol.tools : [];
  const templateTools = template?.rendersTools && protocol.name !== 'terminus' ? protocol.tools : undefined;
  const system = protocol.systemPrompt({ maxTurns, timeoutSec: options.agentTimeoutSec, toolsInTemplate: !!templateTools, compact: compactPrompt(policy) });
  let messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: options.instruction },
  ];
  const contextState: ContextState = { instruction: options.instruction, dropped: [] };
  const meter: ContextMeter = policy.tokenLevel ? exactMeter(policy.tokenLevel.codec, policy.tokenLevel.template) : estimatingMeter();
  const budget = policy.contextWindow ? policy.contextWindow - policy.maxCompletionTokens : null;
  const ledger = policy.tokenLevel ? new TokenLedger(policy.tokenLevel.codec, { mode: options.tito ?? 'exact' }) : null;
  const render = (addGenerationPrompt: boolean) => template!.render(messages, { addGenerationPrompt, tools: templateTools });

  const outer = options.signal ?? new AbortController().signal;
  const agentDeadline = AbortSignal.timeout(Math.max(1, options.agentTimeoutSec * 1000));
  const signal = AbortSignal.any([outer, agentDeadline, ...(options.agentStop ? [options.agentStop] : [])]);
  // What interrupts a running command at once: the caller's abort, or the agent being stopped.
  const interrupt = options.agentStop ? AbortSignal.any([outer, options.agentStop]) : outer;
  const deadlineAt = Date.now() + options.agentTimeoutSec * 1000;
  // The timer of AbortSignal.timeout may fire a little after a command bounded by the same deadline returns.
  const expired = () => signal.aborted || Date.now() >= deadlineAt;

  let session = options.session;
  let shellExit: { exitCode: number | null } | null = null;
  const watchShell = (s: ShellSession) => s.onExit((exit) => (shellExit = exit));
  let shellWatch = watchShell(session);

  const contextEvents: ContextEvent[] = [];
  const turns: Turn[] = [];
  const tokens = { prompt: 0, completion: 0 };
  let costUsd: number | null = null;
  let stopReason: StopReason = 'max_turns';
  let error: EpisodeError | null = null;
  let pendingObservations: string[] = [];
  let episode: PolicyEpisode | null = null;

  try {
    episode = await policy.startEpisode({
      taskId: options.taskId,
      instruction: options.instruction,
      solutionCommands: options.solutionCommands,
      agentTimeoutSec: options.agentTimeoutSec,
      protocol,
      seed: options.seed,
    });
  } catch (e) {
    stopReason = 'policy_error';
    error = { kind: 'policy', message: (e as Error).message };
  }

  for (let index = 0; episode && index < maxTurns; index++) {
    if (expired()) {
      ({ stopReason, error } = stopFromSignal(outer));
      break;
    }
    const turnStart = performance.now();
    const startedTurnAt = new Date().toISOString();
    if (budget !== null) {
      const decision = fitContext(messages, budget, meter, strategy, index, contextState);
      if (decision.event) contextEvents.push(decision.event);
      if (decision.stop) {
        stopReason = 'context';
        break;
      }
      messages = decision.messages;
    }
    let ledgerCheck: Turn['ledger'];
    let promptIds: number[] | undefined;
    let promptText: string | undefined;
    if (ledger) {
      promptText = render(true);
      ledgerCheck = ledger.sync(promptText, pendingObservations) ?? undefined;
      promptIds = ledger.ids();
    }

    const policyStart = performance.now();
    let reply: PolicyReply;
    try {
      reply = await episode.turn({ messages, tools: nativeTools, promptIds, promptText, signal, turn: index });
    } catch (e) {
      if (expired()) ({ stopReason, error } = stopFromSignal(outer));
      else {
        stopReason = 'policy_error';
        error = { kind: 'policy', message: (e as Error).message };
      }
      break;
    }
    const policyMs = performance.now() - policyStart;
    if (reply.usage.prompt > 0) meter.observe(messages, reply.usage.prompt);
    tokens.prompt += reply.usage.prompt;
    tokens.completion += reply.usage.completion;
    if (reply.costUsd !== null) costUsd = (costUsd ?? 0) + reply.costUsd;
    // What the sampler ran on: as the policy reports it, else what the harness sent it.
    if (ledger && reply.tokens) ledger.appendSampled(reply.tokens, reply.fed ?? (promptIds ? { ids: promptIds, routing: null } : undefined));

    const assistant = { text: reply.text, ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}) };
    const parsed = protocol.parse(assistant);
    const envStart = performance.now();
    const executions: Turn['executions'] = [];
    const parts: string[] = [];
    let submitted = false;
    let failure: EpisodeError | null = null;
    if (parsed.error) parts.push(parsed.error);
    for (const [i, action] of parsed.actions.entries()) {
      if (action.tool === 'submit') {
        submitted = true;
        break;
      }
      if (expired()) break;
      try {
        // The agent's deadline bounds each action by its remaining time (so the turn is recorded); cancelling
        // or cutting the episode interrupts it at once.
        const done = await executeAction(action, { session, observationChars, remainingMs: Math.max(0, deadlineAt - Date.now()), signal: interrupt, index: i });
        parts.push(done.observation);
        executions.push(done.execution);
      } catch (e) {
        if (!signal.aborted) failure = { kind: 'sandbox', message: `the shell failed: ${(e as Error).message}` };
        break;
      }
      if (shellExit) {
        const code = (shellExit as { exitCode: number | null }).exitCode;
        shellExit = null;
        if (!options.restartShell) {
          failure = { kind: 'sandbox', message: `the shell exited (code ${code}) and cannot be restarted` };
          break;
        }
        shellWatch.dispose();
        try {
          session = await options.restartShell();
        } catch (e) {
          failure = { kind: 'sandbox', message: `the shell exited (code ${code}) and could not be restarted: ${(e as Error).message}` };
          break;
        }
        shellWatch = watchShell(session);
        parts.push(`[the shell exited with code ${code}; a new shell was started: the working directory and variables were reset]`);
      }
    }
    const envMs = performance.now() - envStart;
    // Program output never carries chat-control tokens into the conversation (see neutralizeControlTokens).
    const observation = submitted ? '[submitted]' : [neutralizeControlTokens(parts.join('\n')), parsed.note].filter(Boolean).join('\n\n');
    messages.push({ role: 'assistant', content: reply.text, ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}) });
    if (!submitted) {
      const back = protocol.observationMessages(observation, { parsed, turn: assistant });
      messages.push(...back);
      pendingObservations = back.map((m) => m.content);
    } else pendingObservations = [];
    const turn: Turn = {
      index,
      startedAt: startedTurnAt,
      text: reply.text,
      ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}),
      reasoning: parsed.reasoning,
      actions: parsed.actions,
      parseError: parsed.error,
      observation,
      executions,
      usage: reply.usage,
      costUsd: reply.costUsd,
      finishReason: reply.finishReason,
      ...(reply.tokens ? { tokens: reply.tokens } : {}),
      ...(ledgerCheck ? { ledger: ledgerCheck } : {}),
      timing: { policyMs, envMs, harnessMs: Math.max(0, performance.now() - turnStart - policyMs - envMs) },
    };
    turns.push(turn);
    options.onTurn?.(turn);
    if (failure) {
      stopReason = 'sandbox_error';
      error = failure;
      break;
    }
    if (submitted) {
      stopReason = 'submitted';
      break;
    }
    if (expired()) {
      ({ stopReason, error } = stopFromSignal(outer));
      break;
    }
  }
  shellWatch.dispose();
  await episode?.close?.().catch(() => {});
  const ledgerOut = ledger && template ? { samples: ledger.finish(render(false), pendingObservations), counters: ledger.counters } : null;
  return {
    system,
    instruction: options.instruction,
    turns,
    stopReason,
    error,
    contextEvents,
    ledger: ledgerOut,
    tokens,
    costUsd,
    session,
    startedAt,
    durationMs: performance.now() - started,
  };
}
