/**
 * Entry point of the policy worker (see contracts/policy.ts). onnxruntime's session.run blocks this
 * process's event loop while it computes, which is why it lives here and never in main or the web host.
 */
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { LabError } from '../ipc/common/errors';
import { BatchDecoder } from '../../native/model/decoder';
import { decodeSettingFor } from '../../native/model/decode-defaults';
import { GenerateOptions, type PolicyInfo, type SampledToken } from '../../native/model/policy-api';
import { openCheckpoint, type OpenedCheckpoint } from '../../native/model/policy-checkpoint';
import {
  loadExternalPolicy,
  loadT1Policy,
  type LoadedPolicy,
  type SessionSettings,
} from '../../native/model/policy-model';
import { ProviderUnavailableError } from '../../native/model/providers';
import { randomSeed } from '../../native/model/sampler';
import type { Tokenizer } from '../../native/model/tokenizer';
import { policyContract, PolicySettings } from '../processes/contracts/policy';
import { serveWorker } from './rpc-server';

interface Held {
  checkpoint: OpenedCheckpoint;
  policy: LoadedPolicy;
  decoder: BatchDecoder;
  tokenizer: Tokenizer | null;
  settings: ReturnType<typeof PolicySettings.parse>;
  weightsVersion: number;
  /** Who uses this checkpoint (policy.load's holder): released when the last one unloads. */
  holders: Set<string>;
  /** The checkpoint's files as loaded (size and mtime): a changed checkpoint is loaded again. */
  fingerprint: string;
}

/** Size and mtime of the files that make a checkpoint (ours or an external export). */
function fingerprintOf(dir: string): string {
  return ['manifest.json', 'config.json', 'model.safetensors', 'tokenizer.json', 'model.onnx']
    .map((name) => join(dir, name))
    .filter((file) => existsSync(file))
    .map((file) => {
      const st = statSync(file);
      return `${file}:${st.size}:${st.mtimeMs}`;
    })
    .join('|');
}

/**
 * Why a held session does not match what a load asks for, or null when it does. 'auto' accepts the
 * provider the session is on; unset thread counts accept the session's.
 */
function mismatch(h: Held, wanted: ReturnType<typeof PolicySettings.parse>, fingerprint: string): string | null {
  if (wanted.provider !== 'auto' && wanted.provider !== h.policy.provider)
    return `it runs on ${h.policy.provider} and ${wanted.provider} was asked for`;
  if (wanted.intraOpThreads !== undefined && wanted.intraOpThreads !== h.settings.intraOpThreads)
    return `it uses ${h.settings.intraOpThreads ?? 'the default number of'} threads and ${wanted.intraOpThreads} were asked for`;
  if (wanted.interOpThreads !== undefined && wanted.interOpThreads !== h.settings.interOpThreads)
    return `it uses ${h.settings.interOpThreads ?? 'the default number of'} inter-op threads and ${wanted.interOpThreads} were asked for`;
  if (fingerprint !== h.fingerprint) return 'its files changed on disk since it was loaded';
  return null;
}

const held = new Map<string, Held>();
/** Streamed requests in flight: their stop switches, by stream id. */
const streams = new Map<string, AbortController>();
const log = (m: string) => process.stderr.write(`[policy] ${m}\n`);
/** T1LAB_DECODE_STEP_DELAY_MS: a pause after every decoding step (tests of streaming and Stop; default none). */
const stepDelayMs = Math.max(0, Number(process.env.T1LAB_DECODE_STEP_DELAY_MS) || 0);

function keyOf(path: string): string {
  return resolve(path);
}

function get(path: string): Held {
  const h = held.get(keyOf(path));
  if (!h) throw new LabError('NOT_FOUND', `checkpoint '${path}' is not loaded (call policy.load first)`);
  return h;
}

/**
 * The session settings of a load: what the caller set, and for what it left unset the measured decode
 * setting for the most rows this decoder batches (decode-defaults.ts, from `npm run bench -- model`).
 */
function decodeSessionSettings(parsed: ReturnType<typeof PolicySettings.parse>): SessionSettings {
  const measured = decodeSettingFor(parsed.maxBatch, availableParallelism());
  return {
    ...parsed,
    intraOpThreads: parsed.intraOpThreads ?? measured.intraOpThreads,
    graphOptimization: measured.graphOptimization,
    executionMode: measured.executionMode,
    spinning: measured.spinning,
  };
}

async function loadPolicy(c: OpenedCheckpoint, settings: SessionSettings): Promise<LoadedPolicy> {
  try {
    return c.kind === 't1-moe'
      ? await loadT1Policy(c.config, c.weights, settings)
      : await loadExternalPolicy(c.modelPath, c.hfConfig, settings);
  } catch (error) {
    if (error instanceof ProviderUnavailableError) throw new LabError('UNAVAILABLE', error.message);
    throw error;
  }
}

function open(path: string): OpenedCheckpoint {
  try {
    return openCheckpoint(path);
  } catch (error) {
    throw new LabError('INVALID_PARAMS', (error as Error).message);
  }
}

function info(h: Held): PolicyInfo {
  const c = h.checkpoint;
  const config = c.kind === 't1-moe' ? c.config : null;
  return {
    checkpoint: c.dir,
    kind: c.kind,
    provider: h.policy.provider,
    providerFallbackReason: h.policy.fallbackReason,
    vocabSize:
      h.policy.decoder.vocabSize === Number.MAX_SAFE_INTEGER
        ? (h.tokenizer?.vocabSize ?? 0)
        : h.policy.decoder.vocabSize,
    maxPositions: h.policy.decoder.maxPositions,
    layers: h.policy.decoder.layers,
    expertsPerToken: config?.num_experts_per_tok ?? null,
    eosTokenIds: [...(h.tokenizer?.stopTokenIds ?? [])],
    weightsVersion: h.weightsVersion,
  };
}

const router = serveWorker('policy', policyContract, {
  async 'policy.load'({ checkpoint, settings, holder }) {
    const key = keyOf(checkpoint);
    const parsed = PolicySettings.parse(settings);
    const fingerprint = fingerprintOf(key);
    const existing = held.get(key);
    let holders = new Set([holder]);
    if (existing) {
      const why = mismatch(existing, parsed, fingerprint);
      if (!why) {
        existing.holders.add(holder);
        return info(existing);
      }
      // Never swap a session under a running generation (an evaluation's episodes): say why instead.
      if (existing.decoder.activeRows > 0)
        throw new LabError(
          'CONFLICT',
          `${checkpoint} is in use by a running generation and cannot be reloaded now: ${why}`,
        );
      log(`reloading ${key}: ${why}`);
      held.delete(key);
      holders = new Set([...existing.holders, holder]);
      await existing.decoder.close();
      await existing.policy.decoder.session.release();
    }
    const opened = open(key);
    const policy = await loadPolicy(opened, { ...decodeSessionSettings(parsed), log });
    const tokenizer = opened.tokenizer;
    const decoder = new BatchDecoder(policy.decoder, {
      maxBatch: parsed.maxBatch,
      decode: tokenizer ? (ids) => tokenizer.decode(ids) : undefined,
      log,
      stepDelayMs,
    });
    const racing = held.get(key); // loaded by a concurrent call while this one awaited: share that one
    if (racing) {
      for (const h of holders) racing.holders.add(h);
      await decoder.close();
      await policy.decoder.session.release();
      return info(racing);
    }
    const h: Held = {
      checkpoint: opened,
      policy,
      decoder,
      tokenizer,
      settings: parsed,
      weightsVersion: 1,
      holders,
      fingerprint,
    };
    held.set(key, h);
    return info(h);
  },
  'policy.info': ({ checkpoint }) => info(get(checkpoint)),
  async 'policy.generate'({ checkpoint, promptIds, prompt, options, withText, streamId }, ctx) {
    const h = get(checkpoint);
    let ids = promptIds;
    if (!ids) {
      if (prompt === undefined) throw new LabError('INVALID_PARAMS', 'policy.generate: give promptIds or prompt');
      if (!h.tokenizer)
        throw new LabError('UNAVAILABLE', `checkpoint '${checkpoint}' has no tokenizer.json to encode a text prompt`);
      ids = h.tokenizer.encode(prompt);
    }
    const resolved = GenerateOptions.parse(options);
    const seed = resolved.seed ?? randomSeed();
    const started = performance.now();
    const tokenizer = h.tokenizer;
    const text = (id: number) => (tokenizer ? tokenizer.decode([id]) : null);
    let hooks = {};
    if (streamId !== undefined) {
      if (streams.has(streamId))
        throw new LabError('CONFLICT', `policy.generate: stream '${streamId}' is already running`);
      const stop = new AbortController();
      streams.set(streamId, stop);
      hooks = {
        stop: stop.signal,
        onToken: (t: SampledToken, index: number) =>
          router.emit('policy.token', {
            streamId,
            index,
            id: t.id,
            logprob: t.logprob,
            text: text(t.id),
            alternatives: (t.alternatives ?? []).map((a) => ({ ...a, text: text(a.id) })),
          }),
      };
    }
    try {
      const result = await h.decoder.generate(ids, { ...resolved, seed }, ctx.signal, hooks);
      const tokenTexts = withText && tokenizer ? result.tokens.map((t) => tokenizer.decode([t.id])) : null;
      const alternativeTexts =
        withText && tokenizer && resolved.alternatives > 0
          ? result.tokens.map((t) => (t.alternatives ?? []).map((a) => tokenizer.decode([a.id])))
          : null;
      const elapsed = performance.now() - started;
      return {
        ...result,
        timing: { ...result.timing, queueMs: Math.max(0, elapsed - result.timing.prefillMs - result.timing.decodeMs) },
        promptIds: ids,
        tokenTexts,
        alternativeTexts,
        seed,
      };
    } catch (error) {
      if ((error as { code?: string }).code === 'CANCELLED') throw new LabError('CANCELLED', 'generation cancelled');
      throw new LabError('INVALID_PARAMS', (error as Error).message);
    } finally {
      if (streamId !== undefined) streams.delete(streamId);
    }
  },
  'policy.stop'({ streamId }) {
    const stop = streams.get(streamId);
    stop?.abort();
    return { stopped: stop !== undefined };
  },
  async 'policy.swap'({ checkpoint, weights }) {
    const h = get(checkpoint);
    if (h.checkpoint.kind !== 't1-moe')
      throw new LabError('CONFLICT', 'weights of external ONNX checkpoints cannot be swapped');
    const next = open(weights);
    if (next.kind !== 't1-moe' || JSON.stringify(next.config) !== JSON.stringify(h.checkpoint.config)) {
      throw new LabError(
        'CONFLICT',
        `${weights}: a checkpoint with the same config.json as ${checkpoint} is needed to swap weights`,
      );
    }
    const policy = await loadPolicy(next, { ...h.settings, log });
    h.decoder.swap(policy.decoder);
    h.policy = policy;
    h.checkpoint = { ...h.checkpoint, weights: next.weights };
    h.weightsVersion += 1;
    return info(h);
  },
  async 'policy.unload'({ checkpoint, holder }) {
    const key = keyOf(checkpoint);
    const h = held.get(key);
    if (!h) return { unloaded: false, holders: 0 };
    h.holders.delete(holder);
    if (h.holders.size > 0) return { unloaded: false, holders: h.holders.size };
    held.delete(key);
    await h.decoder.close();
    await h.policy.decoder.session.release();
    return { unloaded: true, holders: 0 };
  },
});
