/**
 * The agent loop of one episode, the same for every policy: render the conversation, fit it to the context
 * budget, ask the policy for one assistant turn, parse its action, execute it in the shell, format the
 * observation — until the agent submits, the turn limit, the agent's deadline or the context budget ends it.
 * It owns no sandbox and knows no task format: the lab hands it a shell and an instruction, and afterwards
 * kills the agent's processes and runs the verifier.
 */
import type { ShellSession } from '../../../native/pty/types';
import type {
  ChatMessage,
  ContextEvent,
  EpisodeError,
  LedgerCounters,
  LedgerSample,
  StopReason,
  Turn,
} from '../../domain/trajectory';
import {
  estimatingMeter,
  exactMeter,
  fitContext,
  type ContextMeter,
  type ContextState,
  type ContextStrategy,
} from '../context';
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
    return {
      stopReason: reason.stopReason,
      error: reason.stopReason === 'deadline' ? { kind: 'timeout', message: reason.message } : null,
    };
  }
  if (outer.aborted) return { stopReason: 'cancelled', error: null };
  return { stopReason: 'agent_timeout', error: { kind: 'timeout', message: 'the agent ran out of time' } };
}

/** The compact system prompt is the policy's choice (the local `onnx:` model with a small window). */
export function compactPrompt(policy: Pick<Policy, 'compactPrompt'>): boolean {
  return policy.compactPrompt === true;
}

/** An episode's fixed setup: the protocol and template, the context budget, the ledger, the signals and the agent's deadline. */
interface LoopSetup {
  options: AgentLoopOptions;
  maxTurns: number;
  observationChars: number;
  strategy: ContextStrategy;
  protocol: ReturnType<typeof createProtocol>;
  template: Policy['template'];
  nativeTools: ReturnType<typeof createProtocol>['tools'];
  templateTools: ReturnType<typeof createProtocol>['tools'] | undefined;
  system: string;
  meter: ContextMeter;
  budget: number | null;
  ledger: TokenLedger | null;
  /** The caller's abort. */
  outer: AbortSignal;
  /** Anything that ends the agent's turns: the caller, the agent's deadline, `agentStop`. */
  signal: AbortSignal;
  /** What interrupts a running command at once: the caller's abort, or the agent being stopped. */
  interrupt: AbortSignal;
  deadlineAt: number;
}

/** What an episode accumulates: the conversation, the turns, the shell (it may be restarted), the stop. */
interface LoopState {
  messages: ChatMessage[];
  contextState: ContextState;
  pendingObservations: string[];
  contextEvents: ContextEvent[];
  turns: Turn[];
  tokens: { prompt: number; completion: number };
  costUsd: number | null;
  stopReason: StopReason;
  error: EpisodeError | null;
  session: ShellSession;
  shellExit: { exitCode: number | null } | null;
  shellWatch: { dispose(): void };
  /** An action ran to the agent's remaining time: the agent's time is over, whatever any clock says. */
  outOfTime: boolean;
}

export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const setup = setUpLoop(options);
  const st = initialState(setup);
  const episode = await startPolicyEpisode(setup, st);
  for (let index = 0; episode && index < setup.maxTurns; index++) {
    if (expired(setup, st)) {
      stopFrom(setup, st);
      break;
    }
    if (!(await takeTurn(setup, st, episode, index))) break;
  }
  st.shellWatch.dispose();
  await episode?.close?.().catch(() => {});
  const ledgerOut =
    setup.ledger && setup.template
      ? {
          samples: setup.ledger.finish(render(setup, st, false), st.pendingObservations),
          counters: setup.ledger.counters,
        }
      : null;
  return {
    system: setup.system,
    instruction: options.instruction,
    turns: st.turns,
    stopReason: st.stopReason,
    error: st.error,
    contextEvents: st.contextEvents,
    ledger: ledgerOut,
    tokens: st.tokens,
    costUsd: st.costUsd,
    session: st.session,
    startedAt,
    durationMs: performance.now() - started,
  };
}

function setUpLoop(options: AgentLoopOptions): LoopSetup {
  const { policy } = options;
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const protocol = createProtocol(policy.protocol);
  const template = policy.tokenLevel?.template ?? policy.template;
  const templateTools = template?.rendersTools && protocol.name !== 'terminus' ? protocol.tools : undefined;
  const outer = options.signal ?? new AbortController().signal;
  const agentDeadline = AbortSignal.timeout(Math.max(1, options.agentTimeoutSec * 1000));
  return {
    options,
    maxTurns,
    observationChars: options.observationChars ?? DEFAULT_OBSERVATION_CHARS,
    strategy: options.contextStrategy ?? 'drop-oldest',
    protocol,
    template,
    nativeTools: protocol.name === 'tools' ? protocol.tools : [],
    templateTools,
    system: protocol.systemPrompt({
      maxTurns,
      timeoutSec: options.agentTimeoutSec,
      toolsInTemplate: !!templateTools,
      compact: compactPrompt(policy),
    }),
    meter: policy.tokenLevel ? exactMeter(policy.tokenLevel.codec, policy.tokenLevel.template) : estimatingMeter(),
    budget: policy.contextWindow ? policy.contextWindow - policy.maxCompletionTokens : null,
    ledger: policy.tokenLevel ? new TokenLedger(policy.tokenLevel.codec, { mode: options.tito ?? 'exact' }) : null,
    outer,
    signal: AbortSignal.any([outer, agentDeadline, ...(options.agentStop ? [options.agentStop] : [])]),
    interrupt: options.agentStop ? AbortSignal.any([outer, options.agentStop]) : outer,
    // One clock for the agent's time: the monotonic one. The timers of AbortSignal.timeout and of a command
    // bounded by the remaining time may fire a millisecond before a clock reading says "expired"; an action that
    // ran to the agent's remaining time therefore ends the agent's time by itself (`outOfTime`), whatever any
    // clock says, so the policy is never asked for a turn the agent has no time for (and its failure there is
    // never reported as the policy's fault).
    deadlineAt: performance.now() + options.agentTimeoutSec * 1000,
  };
}

function initialState(setup: LoopSetup): LoopState {
  const { options } = setup;
  const st: LoopState = {
    messages: [
      { role: 'system', content: setup.system },
      { role: 'user', content: options.instruction },
    ],
    contextState: { instruction: options.instruction, dropped: [] },
    pendingObservations: [],
    contextEvents: [],
    turns: [],
    tokens: { prompt: 0, completion: 0 },
    costUsd: null,
    stopReason: 'max_turns',
    error: null,
    session: options.session,
    shellExit: null,
    shellWatch: { dispose: () => {} },
    outOfTime: false,
  };
  st.shellWatch = watchShell(st, st.session);
  return st;
}

const watchShell = (st: LoopState, s: ShellSession) => s.onExit((exit) => (st.shellExit = exit));
const expired = (setup: LoopSetup, st: LoopState) =>
  st.outOfTime || setup.signal.aborted || performance.now() >= setup.deadlineAt;
const render = (setup: LoopSetup, st: LoopState, addGenerationPrompt: boolean) =>
  setup.template!.render(st.messages, { addGenerationPrompt, tools: setup.templateTools });

/** The stop reason and error when the caller aborted or the agent's time ran out. */
function stopFrom(setup: LoopSetup, st: LoopState): void {
  ({ stopReason: st.stopReason, error: st.error } = stopFromSignal(setup.outer));
}

async function startPolicyEpisode(setup: LoopSetup, st: LoopState): Promise<PolicyEpisode | null> {
  const { options } = setup;
  try {
    return await options.policy.startEpisode({
      taskId: options.taskId,
      instruction: options.instruction,
      solutionCommands: options.solutionCommands,
      agentTimeoutSec: options.agentTimeoutSec,
      protocol: setup.protocol,
      seed: options.seed,
    });
  } catch (e) {
    st.stopReason = 'policy_error';
    st.error = { kind: 'policy', message: (e as Error).message };
    return null;
  }
}

/** One turn: fit the context, ask the policy, run its actions, record the turn. False when the episode ends. */
async function takeTurn(setup: LoopSetup, st: LoopState, episode: PolicyEpisode, index: number): Promise<boolean> {
  const turnStart = performance.now();
  const startedTurnAt = new Date().toISOString();
  if (!fitTurnContext(setup, st, index)) return false;
  const prompt = syncLedger(setup, st);
  const policyStart = performance.now();
  const reply = await askPolicy(setup, st, episode, index, prompt);
  if (!reply) return false;
  const policyMs = performance.now() - policyStart;
  recordUsage(setup, st, reply, prompt.ids);

  const assistant = { text: reply.text, ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}) };
  const parsed = setup.protocol.parse(assistant);
  const envStart = performance.now();
  const acted = await runActions(setup, st, parsed);
  const envMs = performance.now() - envStart;
  const observation = answer(setup, st, reply, parsed, assistant, acted);
  const turn: Turn = {
    index,
    startedAt: startedTurnAt,
    text: reply.text,
    ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}),
    reasoning: parsed.reasoning,
    actions: parsed.actions,
    parseError: parsed.error,
    observation,
    executions: acted.executions,
    usage: reply.usage,
    costUsd: reply.costUsd,
    finishReason: reply.finishReason,
    ...(reply.tokens ? { tokens: reply.tokens } : {}),
    ...(prompt.ledgerCheck ? { ledger: prompt.ledgerCheck } : {}),
    timing: { policyMs, envMs, harnessMs: Math.max(0, performance.now() - turnStart - policyMs - envMs) },
  };
  st.turns.push(turn);
  setup.options.onTurn?.(turn);
  if (acted.failure) {
    st.stopReason = 'sandbox_error';
    st.error = acted.failure;
    return false;
  }
  if (acted.submitted) {
    st.stopReason = 'submitted';
    return false;
  }
  if (expired(setup, st)) {
    stopFrom(setup, st);
    return false;
  }
  return true;
}

/** Fit the conversation to the context budget; false when it no longer fits (stop reason `context`). */
function fitTurnContext(setup: LoopSetup, st: LoopState, index: number): boolean {
  if (setup.budget === null) return true;
  const decision = fitContext(st.messages, setup.budget, setup.meter, setup.strategy, index, st.contextState);
  if (decision.event) st.contextEvents.push(decision.event);
  if (decision.stop) {
    st.stopReason = 'context';
    return false;
  }
  st.messages = decision.messages;
  return true;
}

/** Token-level policies: bring the ledger up to the rendered prompt; the ids the sampler is fed (token in). */
function syncLedger(setup: LoopSetup, st: LoopState): { ids?: number[]; text?: string; ledgerCheck?: Turn['ledger'] } {
  if (!setup.ledger) return {};
  const text = render(setup, st, true);
  const ledgerCheck = setup.ledger.sync(text, st.pendingObservations) ?? undefined;
  return { ids: setup.ledger.ids(), text, ledgerCheck };
}

/** The policy's assistant turn, or null with the stop recorded (its failure, or the agent's time ran out meanwhile). */
async function askPolicy(
  setup: LoopSetup,
  st: LoopState,
  episode: PolicyEpisode,
  index: number,
  prompt: { ids?: number[]; text?: string },
): Promise<PolicyReply | null> {
  try {
    return await episode.turn({
      messages: st.messages,
      tools: setup.nativeTools,
      promptIds: prompt.ids,
      promptText: prompt.text,
      signal: setup.signal,
      turn: index,
    });
  } catch (e) {
    if (expired(setup, st)) stopFrom(setup, st);
    else {
      st.stopReason = 'policy_error';
      st.error = { kind: 'policy', message: (e as Error).message };
    }
    return null;
  }
}

function recordUsage(setup: LoopSetup, st: LoopState, reply: PolicyReply, promptIds: number[] | undefined): void {
  if (reply.usage.prompt > 0) setup.meter.observe(st.messages, reply.usage.prompt);
  st.tokens.prompt += reply.usage.prompt;
  st.tokens.completion += reply.usage.completion;
  if (reply.costUsd !== null) st.costUsd = (st.costUsd ?? 0) + reply.costUsd;
  // What the sampler ran on: as the policy reports it, else what the harness sent it.
  if (setup.ledger && reply.tokens)
    setup.ledger.appendSampled(reply.tokens, reply.fed ?? (promptIds ? { ids: promptIds, routing: null } : undefined));
}

interface Acted {
  executions: Turn['executions'];
  /** The observation's parts: the parse error, each action's output, a restarted shell's note. */
  parts: string[];
  submitted: boolean;
  failure: EpisodeError | null;
}

/** Run the turn's actions in the shell, in order, until a submit, the agent's time, or a shell failure. */
async function runActions(
  setup: LoopSetup,
  st: LoopState,
  parsed: ReturnType<LoopSetup['protocol']['parse']>,
): Promise<Acted> {
  const acted: Acted = { executions: [], parts: [], submitted: false, failure: null };
  if (parsed.error) acted.parts.push(parsed.error);
  for (const [i, action] of parsed.actions.entries()) {
    if (action.tool === 'submit') {
      acted.submitted = true;
      break;
    }
    if (expired(setup, st)) break;
    try {
      // The agent's deadline bounds each action by its remaining time (so the turn is recorded); cancelling
      // or cutting the episode interrupts it at once.
      const done = await executeAction(action, {
        session: st.session,
        observationChars: setup.observationChars,
        remainingMs: Math.max(0, setup.deadlineAt - performance.now()),
        signal: setup.interrupt,
        index: i,
      });
      acted.parts.push(done.observation);
      acted.executions.push(done.execution);
      if (done.reachedDeadline) st.outOfTime = true;
    } catch (e) {
      if (!setup.signal.aborted)
        acted.failure = { kind: 'sandbox', message: `the shell failed: ${(e as Error).message}` };
      break;
    }
    const restarted = await restartExitedShell(setup, st);
    if (restarted.failure) {
      acted.failure = restarted.failure;
      break;
    }
    if (restarted.note) acted.parts.push(restarted.note);
  }
  return acted;
}

/** The agent's shell exited (it typed `exit`): a new one in the same sandbox, said in the observation. */
async function restartExitedShell(setup: LoopSetup, st: LoopState): Promise<{ note?: string; failure?: EpisodeError }> {
  if (!st.shellExit) return {};
  const code = st.shellExit.exitCode;
  st.shellExit = null;
  const restartShell = setup.options.restartShell;
  if (!restartShell)
    return { failure: { kind: 'sandbox', message: `the shell exited (code ${code}) and cannot be restarted` } };
  st.shellWatch.dispose();
  try {
    st.session = await restartShell();
  } catch (e) {
    return {
      failure: {
        kind: 'sandbox',
        message: `the shell exited (code ${code}) and could not be restarted: ${(e as Error).message}`,
      },
    };
  }
  st.shellWatch = watchShell(st, st.session);
  return {
    note: `[the shell exited with code ${code}; a new shell was started: the working directory and variables were reset]`,
  };
}

/** The assistant's turn and the observation into the conversation; returns the observation as recorded. */
function answer(
  setup: LoopSetup,
  st: LoopState,
  reply: PolicyReply,
  parsed: ReturnType<LoopSetup['protocol']['parse']>,
  assistant: { text: string; toolCalls?: PolicyReply['toolCalls'] },
  acted: Acted,
): string {
  // Program output never carries chat-control tokens into the conversation (see neutralizeControlTokens).
  const observation = acted.submitted
    ? '[submitted]'
    : [neutralizeControlTokens(acted.parts.join('\n')), parsed.note].filter(Boolean).join('\n\n');
  st.messages.push({
    role: 'assistant',
    content: reply.text,
    ...(reply.toolCalls ? { toolCalls: reply.toolCalls } : {}),
  });
  if (!acted.submitted) {
    const back = setup.protocol.observationMessages(observation, { parsed, turn: assistant });
    st.messages.push(...back);
    st.pendingObservations = back.map((m) => m.content);
  } else st.pendingObservations = [];
  return observation;
}
