/**
 * `t1lab tasks sft-data`: SFT samples (electron/domain/sft.ts) from verified trajectories, tokenized with
 * the target checkpoint's tokenizer through the TITO ledger — exactly the ids and loss masks the policy
 * sees in RL.
 *  - Oracle mode: each task's reference solution runs through the real harness (sandbox, pty shell, the
 *    agent loop with the checkpoint's chat template, compact prompt and context budget), one tool call per
 *    command, real observations; the verifier then checks the result, and only resolved episodes are kept.
 *  - `--from-run RUNDIR`: the resolved episodes of an eval run. Episodes of an `onnx:` policy with the same
 *    tokenizer keep their ledger samples as they are; others (text policies, other tokenizers) are replayed
 *    through a fresh ledger with the target's tokenizer and system prompt ("retokenized" in `source`).
 */
import { availableParallelism } from 'node:os';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hashFile } from '../../../native/model/checkpoint';
import { readModelConfig } from '../../../native/model/policy-checkpoint';
import { loadTokenizerFile } from '../../../native/model/tokenizer';
import { makeOwnedTempDir } from '../../../native/util/temp-dirs';
import { loadChatTemplate } from '../../agent/chat/jinja';
import type { ChatTemplate } from '../../agent/chat/template';
import { createTokenizedOraclePolicy } from '../../agent/policy/tokenized-oracle';
import { withoutPreamble } from '../../agent/policy/oracle-preamble';
import { wantsCompactPrompt } from '../../agent/policy/types';
import { createProtocol } from '../../agent/protocol';
import { chunkedCodec, splitTokensOf, type TokenCodec } from '../../agent/tokens/codec';
import { TokenLedger } from '../../agent/tokens/ledger';
import { SFT_SAMPLE_SCHEMA, type SftSample } from '../../domain/sft';
import { Trajectory, type ChatMessage, type LedgerCounters, type LedgerSample } from '../../domain/trajectory';
import { HarnessSettings } from '../../domain/runs';
import { LabError } from '../../ipc/common/errors';
import { EPISODE_FILES } from '../runs/episode-files';
import { readRun } from '../runs/library';
import { runTaskEpisode } from '../runs/run-episode';
import { episodeFolder } from '../runs/store';
import { loadTaskSource, removeTree, solutionCommands, type Task } from '../tasks';
import { SftSampleWriter } from './sft-samples';

export interface SftDataOptions {
  suite?: string;
  checkpoint: string;
  out: string;
  fromRun?: string;
  concurrency?: number;
  maxTurns?: number;
  /**
   * Oracle mode: type the solution's leading `set -…` / `cd /app` commands as turns of their own (`true`),
   * or leave them out (default), so that the first trained turn is the first command that does the work.
   */
  keepPreamble?: boolean;
  /**
   * Oracle mode without running anything: one sample per task holding exactly the prompt an evaluation
   * starts from (system prompt, instruction) and the reference solution's first command as the reply.
   * Cheap (tokenizing only), so thousands of tasks fit: many different names to copy from the instruction
   * into the command, where a few hundred whole episodes teach a small model to write memorised ones.
   */
  firstTurns?: boolean;
  /** The agent's time budget in seconds (default: the task's); the prompt states it, so match the evaluation's. */
  agentTimeoutSec?: number;
  /** Keep the oracle episodes' folders (trajectories, recordings) here. */
  keep?: string;
  onProgress?(done: number, total: number, detail: string): void;
  log?(message: string): void;
  signal?: AbortSignal;
}

export interface SftDataResult {
  samples: number;
  tokens: number;
  lossTokens: number;
  out: string;
  episodes: number;
  resolved: number;
  /** Samples longer than the checkpoint's window (the trainer would skip them). */
  tooLong: number;
  longest: number;
  window: number;
  ledger: { clean: number; repair: number; fork: number; lossDrift: number };
}

interface Target {
  dir: string;
  codec: TokenCodec;
  template: ChatTemplate;
  endOfTurnId: number;
  sha: string;
  window: number;
  maxCompletionTokens: number;
}

function openTarget(checkpoint: string): Target {
  const dir = resolve(checkpoint);
  const config = readModelConfig(dir);
  if (!config)
    throw new LabError(
      'INVALID_PARAMS',
      `--checkpoint ${dir}: neither a t1-moe checkpoint nor a published Hugging Face folder (config.json)`,
    );
  const tokenizer = loadTokenizerFile(dir);
  const endOfTurnId = tokenizer.special.imEnd;
  if (endOfTurnId === undefined)
    throw new LabError('INVALID_PARAMS', `${dir}/tokenizer.json has no <|im_end|> token to end assistant turns`);
  const plain: TokenCodec = { encode: (t) => tokenizer.encode(t), decode: (ids) => tokenizer.decode(ids) };
  const split = splitTokensOf(JSON.parse(tokenizer.json));
  const window = config.max_position_embeddings;
  return {
    dir,
    codec: split ? chunkedCodec(plain, split) : plain,
    template: loadChatTemplate(dir),
    endOfTurnId,
    sha: hashFile(join(dir, 'tokenizer.json')).sha256,
    window,
    // The same reply budget as the checkpoint's `onnx:` policy (policy/onnx.ts).
    maxCompletionTokens: Math.min(1024, Math.floor(window / 8)),
  };
}

function toSample(
  s: LedgerSample,
  n: number,
  base: Omit<SftSample, 'id' | 'ids' | 'mask' | 'segments' | 'schema'> & { key: string },
): SftSample {
  const { key, ...rest } = base;
  return { schema: SFT_SAMPLE_SCHEMA, id: `${key}#${n}`, ids: s.ids, mask: s.mask, segments: s.segments, ...rest };
}

function counters(c: LedgerCounters | null | undefined) {
  return { clean: c?.clean ?? 0, repair: c?.repair ?? 0, fork: c?.fork ?? 0, lossDrift: c?.lossDrift ?? 0 };
}

/** A finished conversation replayed through a fresh ledger with the target's tokenizer and system prompt. */
function retokenize(
  t: Trajectory,
  target: Target,
  maxTurns: number,
): { samples: LedgerSample[]; counters: LedgerCounters } {
  const protocol = createProtocol(t.policy.protocol === 'tools' ? 'hermes' : t.policy.protocol);
  const system = protocol.systemPrompt({
    maxTurns,
    timeoutSec: 900,
    toolsInTemplate: false,
    compact: wantsCompactPrompt(target.window),
  });
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: t.instruction },
  ];
  const ledger = new TokenLedger(target.codec);
  let pending: string[] = [];
  for (const turn of t.turns) {
    ledger.sync(target.template.render(messages, { addGenerationPrompt: true }), pending);
    const text = turn.toolCalls?.length
      ? protocol.writeAction(turn.actions[0] ?? { tool: 'submit' }, 'call').text
      : turn.text;
    // No sampler ran: what one would have been fed is the ledger's ids (the loss-drift check's record).
    ledger.appendSampled(
      { ids: [...target.codec.encode(text), target.endOfTurnId], logprobs: [] },
      { ids: ledger.ids(), routing: null },
    );
    messages.push({ role: 'assistant', content: text });
    const parsed = protocol.parse({ text });
    if (turn.observation !== '[submitted]') {
      const back = protocol.observationMessages(turn.observation, { parsed, turn: { text } });
      messages.push(...back);
      pending = back.map((m) => m.content);
    } else pending = [];
  }
  const samples = ledger.finish(target.template.render(messages, { addGenerationPrompt: false }), pending);
  return { samples, counters: ledger.counters };
}

export async function makeSftData(o: SftDataOptions): Promise<SftDataResult> {
  const target = openTarget(o.checkpoint);
  const maxTurns = o.maxTurns ?? 30;
  const out = resolve(o.out);
  const writer = new SftSampleWriter(out);
  const result: SftDataResult = {
    samples: 0,
    tokens: 0,
    lossTokens: 0,
    out,
    episodes: 0,
    resolved: 0,
    tooLong: 0,
    longest: 0,
    window: target.window,
    ledger: { clean: 0, repair: 0, fork: 0, lossDrift: 0 },
  };
  const add = (samples: SftSample[]) => {
    writer.write(samples);
    for (const s of samples) {
      result.samples++;
      result.tokens += s.ids.length;
      result.lossTokens += s.mask.reduce<number>((a, b) => a + b, 0);
      result.longest = Math.max(result.longest, s.ids.length);
      if (s.ids.length > target.window) result.tooLong++;
    }
  };
  const tally = (c: ReturnType<typeof counters>) => {
    for (const k of ['clean', 'repair', 'fork', 'lossDrift'] as const) result.ledger[k] += c[k];
  };
  try {
    if (o.fromRun) await fromRun(o, target, maxTurns, result, add, tally);
    else if (o.firstTurns) await fromFirstTurns(o, target, maxTurns, result, add, tally);
    else await fromOracle(o, target, maxTurns, result, add, tally);
  } finally {
    writer.close();
  }
  if (result.tooLong)
    o.log?.(
      `${result.tooLong} of ${result.samples} samples are longer than the checkpoint's window (${target.window} tokens; the longest has ${result.longest}): training skips them`,
    );
  return result;
}

async function fromOracle(
  o: SftDataOptions,
  target: Target,
  maxTurns: number,
  result: SftDataResult,
  add: (s: SftSample[]) => void,
  tally: (c: ReturnType<typeof counters>) => void,
): Promise<void> {
  if (!o.suite) throw new LabError('INVALID_PARAMS', '--suite is required (or --from-run)');
  const source = await loadTaskSource(o.suite);
  for (const bad of source.invalid) o.log?.(`skipped invalid task '${bad.id}'`);
  const tasks = source.tasks.filter((t) => t.environment.runtime.kind === 'sandbox' && t.solution);
  if (!tasks.length) throw new LabError('NOT_FOUND', `${o.suite}: no runnable task with a reference solution`);
  const policy = createTokenizedOraclePolicy({
    codec: target.codec,
    template: target.template,
    endOfTurnId: target.endOfTurnId,
    contextWindow: target.window,
    maxCompletionTokens: target.maxCompletionTokens,
    skipPreamble: !o.keepPreamble,
  });
  const harness = HarnessSettings.parse({
    maxTurns,
    ...(o.agentTimeoutSec ? { agentTimeoutSec: o.agentTimeoutSec } : {}),
  });
  const root = o.keep ? resolve(o.keep) : await makeOwnedTempDir('sft-data');
  const concurrency = Math.max(1, o.concurrency ?? Math.min(4, availableParallelism()));
  let next = 0;
  let done = 0;
  const work = async (task: Task) => {
    const rel = episodeFolder(task.id, 1);
    const abs = join(root, rel);
    mkdirSync(abs, { recursive: true });
    const episode = await runTaskEpisode({
      task,
      policy,
      harness,
      key: `${task.id}@1`,
      attempt: 1,
      seed: 0,
      dir: { abs, rel },
      signal: o.signal,
    });
    const t = episode.trajectory;
    result.episodes++;
    if (t.resolved && t.ledger) {
      result.resolved++;
      tally(counters(t.ledger.counters));
      add(
        t.ledger.samples.map((s, n) =>
          toSample(s, n, {
            key: `${task.id}@1`,
            task: task.id,
            source: 'oracle',
            tokenizer: target.sha,
            protocol: t.policy.protocol,
            reward: t.reward,
            resolved: true,
            turns: t.turns.length,
            ledger: counters(t.ledger?.counters),
          }),
        ),
      );
    } else
      o.log?.(
        `task ${task.id}: the oracle episode did not resolve (${t.stopReason}${t.error ? `: ${t.error.message}` : ''}); no sample`,
      );
  };
  try {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, tasks.length) }, async () => {
        while (next < tasks.length && !o.signal?.aborted) {
          const task = tasks[next++]!;
          try {
            await work(task);
          } catch (error) {
            o.log?.(`task ${task.id}: ${(error as Error).message}`);
          }
          o.onProgress?.(++done, tasks.length, task.id);
        }
      }),
    );
  } finally {
    if (!o.keep) await removeTree(root).catch(() => {});
  }
}

async function fromFirstTurns(
  o: SftDataOptions,
  target: Target,
  maxTurns: number,
  result: SftDataResult,
  add: (s: SftSample[]) => void,
  tally: (c: ReturnType<typeof counters>) => void,
): Promise<void> {
  if (!o.suite) throw new LabError('INVALID_PARAMS', '--suite is required (or --from-run)');
  const source = await loadTaskSource(o.suite);
  for (const bad of source.invalid) o.log?.(`skipped invalid task '${bad.id}'`);
  const protocol = createProtocol('hermes');
  const tasks = source.tasks.filter((t) => t.solution);
  let done = 0;
  for (const task of tasks) {
    if (o.signal?.aborted) break;
    o.onProgress?.(done++, tasks.length, task.id);
    const all = solutionCommands(task);
    const command = (o.keepPreamble ? all : withoutPreamble(all))[0];
    if (command === undefined) continue;
    const timeoutSec = o.agentTimeoutSec ?? task.agent.timeoutSec;
    // The prompt exactly as the harness's first turn renders it (agent/episode/loop.ts), then the reply as
    // the tokenized oracle writes it (no `timeout`), then the end of the turn.
    const messages: ChatMessage[] = [
      {
        role: 'system',
        content: protocol.systemPrompt({
          maxTurns,
          timeoutSec,
          toolsInTemplate: false,
          compact: wantsCompactPrompt(target.window),
        }),
      },
      { role: 'user', content: task.instruction },
    ];
    const ledger = new TokenLedger(target.codec);
    ledger.sync(target.template.render(messages, { addGenerationPrompt: true }), []);
    const text = protocol.writeAction({ tool: 'bash', command }, 'call_0').text;
    ledger.appendSampled(
      { ids: [...target.codec.encode(text), target.endOfTurnId], logprobs: [] },
      { ids: ledger.ids(), routing: null },
    );
    messages.push({ role: 'assistant', content: text });
    const samples = ledger.finish(target.template.render(messages, { addGenerationPrompt: false }), []);
    result.episodes++;
    tally(counters(ledger.counters));
    // Not run, so nothing was measured: no reward, not resolved.
    add(
      samples.map((s, n) =>
        toSample(s, n, {
          key: `${task.id}@first`,
          task: task.id,
          source: 'oracle-first-turn',
          tokenizer: target.sha,
          protocol: 'hermes',
          reward: null,
          resolved: false,
          turns: 1,
          ledger: counters(ledger.counters),
        }),
      ),
    );
  }
  o.onProgress?.(tasks.length, tasks.length, 'done');
}

async function fromRun(
  o: SftDataOptions,
  target: Target,
  maxTurns: number,
  result: SftDataResult,
  add: (s: SftSample[]) => void,
  tally: (c: ReturnType<typeof counters>) => void,
): Promise<void> {
  const dir = resolve(o.fromRun!);
  const run = readRun(dir);
  const policySpec = run.manifest.config.policy;
  const policyDir = policySpec.startsWith('onnx:') ? resolve(policySpec.slice(5)) : null;
  const sameTokenizer =
    !!policyDir &&
    existsSync(join(policyDir, 'tokenizer.json')) &&
    hashFile(join(policyDir, 'tokenizer.json')).sha256 === target.sha;
  const resolved = run.episodes.filter((e) => e.resolved);
  let done = 0;
  for (const record of resolved) {
    o.onProgress?.(done++, resolved.length, record.key);
    const file = join(dir, record.dir, EPISODE_FILES.trajectory);
    if (!existsSync(file)) continue;
    const t = Trajectory.parse(JSON.parse(readFileSync(file, 'utf8')));
    result.episodes++;
    result.resolved++;
    const keep = sameTokenizer && t.ledger && t.ledger.samples.length > 0;
    const ledger = keep ? t.ledger! : retokenize(t, target, maxTurns);
    tally(counters(ledger.counters));
    const source = `run:${run.manifest.id}${keep ? '' : ' (retokenized)'}`;
    add(
      ledger.samples.map((s, n) =>
        toSample(s, n, {
          key: record.key,
          task: record.taskId,
          source,
          tokenizer: target.sha,
          protocol: t.policy.protocol,
          reward: t.reward,
          resolved: true,
          turns: t.turns.length,
          ledger: counters(ledger.counters),
        }),
      ),
    );
  }
  o.onProgress?.(resolved.length, resolved.length, 'done');
  if (!resolved.length) o.log?.(`${dir}: no resolved episode`);
}
