/**
 * `replay:FILE`: scripted turns, for tests, demos and benchmarks. The file is JSON
 * `{protocol?, loop?, tokenizer?, contextWindow?, turns: [...]}` or JSONL with one turn per line. A turn is
 * raw assistant `text`, native `toolCalls`, or an `action` written in the episode's protocol; `delayMs`
 * simulates a slow model. With `tokenizer` (a tokenizer.json, path relative to the script) the policy is
 * token-level: each turn's text is tokenized as if sampled, and the harness keeps the TITO ledger.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { LabError } from '../../ipc/common/errors';
import { Action, ProtocolName } from '../../domain/trajectory';
import { loadChatTemplate } from '../chat/jinja';
import { hfCodec } from '../tokens/codec';
import { PolicyError, ZERO_USAGE, type Policy, type PolicyEpisode, type PolicyReply, type TokenLevel } from './types';

const ReplayTurn = z
  .object({
    text: z.string().optional(),
    toolCalls: z
      .array(
        z.object({
          id: z.string().optional(),
          name: z.string(),
          arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
        }),
      )
      .optional(),
    action: Action.optional(),
    delayMs: z.number().min(0).optional(),
  })
  .refine((t) => t.text !== undefined || t.toolCalls !== undefined || t.action !== undefined, {
    message: 'a turn needs "text", "toolCalls" or "action"',
  });
export type ReplayTurn = z.infer<typeof ReplayTurn>;

export const ReplayScript = z.object({
  protocol: ProtocolName.default('hermes'),
  /** Start again from the first turn when the script runs out (benchmarks); else the policy fails. */
  loop: z.boolean().default(false),
  tokenizer: z.string().optional(),
  contextWindow: z.number().int().positive().optional(),
  turns: z.array(ReplayTurn).min(1),
});
export type ReplayScript = z.infer<typeof ReplayScript>;

export function readReplayScript(file: string): ReplayScript {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new LabError('NOT_FOUND', `replay script ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    try {
      raw = {
        turns: text
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as unknown),
      };
    } catch (error) {
      throw new LabError(
        'INVALID_PARAMS',
        `replay script ${file}: neither JSON nor JSONL (${(error as Error).message})`,
      );
    }
  }
  if (Array.isArray(raw)) raw = { turns: raw };
  const parsed = ReplayScript.safeParse(raw);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ');
    throw new LabError('INVALID_PARAMS', `replay script ${file}: ${where}`);
  }
  return parsed.data;
}

export interface ReplayOptions {
  protocol?: ProtocolName;
}

export function createReplayPolicy(file: string, options: ReplayOptions = {}): Policy {
  const script = readReplayScript(file);
  let tokenLevel: TokenLevel | undefined;
  if (script.tokenizer) {
    const path = resolve(dirname(file), script.tokenizer);
    let json: object;
    try {
      json = JSON.parse(readFileSync(path, 'utf8')) as object;
    } catch (error) {
      throw new LabError('INVALID_PARAMS', `replay script ${file}: tokenizer ${path}: ${(error as Error).message}`);
    }
    tokenLevel = { codec: hfCodec(json), template: loadChatTemplate(dirname(path)) };
  }
  return {
    id: `replay:${file}`,
    protocol: options.protocol ?? script.protocol,
    model: null,
    contextWindow: script.contextWindow ?? null,
    maxCompletionTokens: 0,
    tokenLevel,
    template: tokenLevel?.template,
    async startEpisode(info): Promise<PolicyEpisode> {
      let next = 0;
      return {
        async turn(request): Promise<PolicyReply> {
          if (next >= script.turns.length) {
            if (!script.loop)
              throw new PolicyError(`the replay script ${file} ran out after ${script.turns.length} turns`);
            next = 0;
          }
          const turn = script.turns[next++]!;
          if (turn.delayMs) await sleep(turn.delayMs, undefined, { signal: request.signal });
          let reply: PolicyReply;
          if (turn.action)
            reply = {
              ...info.protocol.writeAction(turn.action, `call_${request.turn}`),
              usage: ZERO_USAGE,
              costUsd: null,
              finishReason: 'scripted',
            };
          else {
            const toolCalls = turn.toolCalls?.map((c, i) => ({
              id: c.id ?? `call_${request.turn}_${i}`,
              name: c.name,
              arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
            }));
            reply = {
              text: turn.text ?? '',
              ...(toolCalls ? { toolCalls } : {}),
              usage: ZERO_USAGE,
              costUsd: null,
              finishReason: 'scripted',
            };
          }
          if (tokenLevel) {
            const ids = [
              ...tokenLevel.codec.encode(reply.text),
              ...tokenLevel.codec.encode(tokenLevel.template.endOfTurn),
            ];
            reply.tokens = { ids, logprobs: ids.map(() => 0) };
            reply.usage = { prompt: request.promptIds?.length ?? 0, completion: ids.length, cached: 0 };
          }
          return reply;
        },
      };
    },
    async close() {},
  };
}
