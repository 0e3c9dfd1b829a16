/**
 * Harbor's Agent Trajectory Interchange Format (ATIF v1.4) export of our trajectory, so Harbor's tools and
 * viewers read our episodes: a system step (the system prompt), a user step (the instruction), then one agent
 * step per turn with its tool calls, observation and metrics (token ids and log-probs when sampled locally).
 * What ATIF has no field for (the ledger, routing, verifier detail) goes in `extra`.
 */
import { TRAJECTORY_SCHEMA, type Trajectory, type Turn } from '../../domain/trajectory';
import { actionToToolCall } from '../protocol/actions';

export const ATIF_VERSION = 'ATIF-v1.4';

export interface AtifToolCall {
  tool_call_id: string;
  function_name: string;
  arguments: Record<string, unknown>;
}

export interface AtifStep {
  step_id: number;
  timestamp?: string;
  source: 'system' | 'user' | 'agent';
  model_name?: string;
  message: string;
  reasoning_content?: string;
  tool_calls?: AtifToolCall[];
  observation?: { results: { source_call_id?: string; content?: string }[] };
  metrics?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    cached_tokens?: number;
    cost_usd?: number;
    completion_token_ids?: number[];
    logprobs?: number[];
    extra?: Record<string, unknown>;
  };
  extra?: Record<string, unknown>;
}

export interface AtifTrajectory {
  schema_version: typeof ATIF_VERSION;
  session_id: string;
  agent: { name: string; version: string; model_name?: string; extra?: Record<string, unknown> };
  steps: AtifStep[];
  notes?: string;
  final_metrics?: {
    total_prompt_tokens?: number;
    total_completion_tokens?: number;
    total_cached_tokens?: number;
    total_cost_usd?: number;
    total_steps?: number;
    extra?: Record<string, unknown>;
  };
  extra?: Record<string, unknown>;
}

function agentStep(turn: Turn, stepId: number, model: string | null): AtifStep {
  const calls: AtifToolCall[] = turn.actions.map((action, i) => {
    const call = actionToToolCall(action);
    return {
      tool_call_id: turn.toolCalls?.[i]?.id ?? `turn${turn.index}_call${i}`,
      function_name: call.name,
      arguments: call.arguments,
    };
  });
  const step: AtifStep = {
    step_id: stepId,
    timestamp: turn.startedAt,
    source: 'agent',
    message: turn.text,
    ...(model ? { model_name: model } : {}),
    ...(turn.reasoning ? { reasoning_content: turn.reasoning } : {}),
    ...(calls.length ? { tool_calls: calls } : {}),
    observation: {
      results: [
        { ...(calls.length === 1 ? { source_call_id: calls[0]!.tool_call_id } : {}), content: turn.observation },
      ],
    },
    metrics: {
      prompt_tokens: turn.usage.prompt,
      completion_tokens: turn.usage.completion,
      cached_tokens: turn.usage.cached,
      ...(turn.costUsd !== null ? { cost_usd: turn.costUsd } : {}),
      ...(turn.tokens ? { completion_token_ids: turn.tokens.ids, logprobs: turn.tokens.logprobs } : {}),
      ...(turn.tokens?.routing ? { extra: { routing: turn.tokens.routing } } : {}),
    },
    extra: {
      turn: turn.index,
      parse_error: turn.parseError,
      executions: turn.executions,
      finish_reason: turn.finishReason,
      timing_ms: turn.timing,
      ...(turn.ledger ? { ledger: turn.ledger } : {}),
    },
  };
  return step;
}

export function toAtif(t: Trajectory, agentVersion: string): AtifTrajectory {
  const steps: AtifStep[] = [
    { step_id: 1, timestamp: t.startedAt, source: 'system', message: t.system },
    { step_id: 2, timestamp: t.startedAt, source: 'user', message: t.instruction },
  ];
  for (const turn of t.turns) steps.push(agentStep(turn, steps.length + 1, t.policy.model));
  const cached = t.turns.reduce((n, turn) => n + turn.usage.cached, 0);
  return {
    schema_version: ATIF_VERSION,
    session_id: t.id,
    agent: {
      name: 't1lab',
      version: agentVersion,
      ...(t.policy.model ? { model_name: t.policy.model } : {}),
      extra: { policy: t.policy.id, protocol: t.policy.protocol },
    },
    steps,
    notes: `Exported from ${TRAJECTORY_SCHEMA}; task ${t.task.id}; stop reason ${t.stopReason}.`,
    final_metrics: {
      total_prompt_tokens: t.tokens.prompt,
      total_completion_tokens: t.tokens.completion,
      total_cached_tokens: cached,
      ...(t.costUsd !== null ? { total_cost_usd: t.costUsd } : {}),
      total_steps: steps.length,
      extra: { reward: t.reward, resolved: t.resolved },
    },
    extra: {
      task: t.task,
      stop_reason: t.stopReason,
      error: t.error,
      context_events: t.contextEvents,
      verifier: t.verifier,
      ...(t.ledger ? { ledger_counters: t.ledger.counters } : {}),
    },
  };
}
