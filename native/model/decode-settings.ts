/**
 * Session settings for decoding, measured rather than assumed (issue 16): one sampling graph, a session per
 * candidate setting (intra-op threads, idle threads spinning or not, graph optimization level, sequential or
 * parallel execution), and the time of one decode step at each batch size with a KV cache of `past` tokens,
 * fed from JavaScript as the batched decoder feeds it. `npm run bench -- model` prints the table.
 * Each figure is the median over rounds of the best step in that round's block.
 */
import { RuntimeSession, type HostTensor, type RuntimeSessionOptions } from '../onnx/runtime';
import type { ModelConfig } from './config';
import { pastKeyName, pastValueName } from './sampling-graph';
import { SAMPLE_INV_TEMPERATURE, SAMPLE_UNIFORM } from './sampling-head';

export interface DecodeSetting {
  intraOpThreads: number;
  spinning: boolean;
  graphOptimization: 'basic' | 'extended' | 'all';
  executionMode: 'sequential' | 'parallel';
}

export interface DecodeSettingRow {
  setting: DecodeSetting;
  batch: number;
  /** Median over rounds of each round's best step (the machine is shared: a block's minimum is the setting's own cost). */
  stepMs: number;
  tokensPerSecond: number;
}

/** The session settings the lab used before the measurement: onnxruntime's defaults (threads 0: one per core, spinning). */
export const ONNXRUNTIME_DEFAULT_SETTING: DecodeSetting = {
  intraOpThreads: 0,
  spinning: true,
  graphOptimization: 'all',
  executionMode: 'sequential',
};

export function settingName(s: DecodeSetting): string {
  return `threads=${s.intraOpThreads || 'auto'} spin=${s.spinning ? 'on' : 'off'} opt=${s.graphOptimization} ${s.executionMode === 'parallel' ? 'par' : 'seq'}`;
}

export function sessionOptionsOf(
  s: DecodeSetting,
): Pick<
  RuntimeSessionOptions,
  'intraOpThreads' | 'interOpThreads' | 'spinning' | 'graphOptimization' | 'executionMode'
> {
  return {
    intraOpThreads: s.intraOpThreads,
    // Parallel execution gets a two-thread inter-op pool; sequential ignores the inter-op pool.
    interOpThreads: s.executionMode === 'parallel' ? 2 : 1,
    spinning: s.spinning,
    graphOptimization: s.graphOptimization,
    executionMode: s.executionMode,
  };
}

/**
 * The candidates: onnxruntime's default, then one change at a time from it (fewer threads, no spinning,
 * a lower optimization level, parallel execution), then fewer threads without spinning.
 */
export function candidateSettings(cores: number): DecodeSetting[] {
  const base = ONNXRUNTIME_DEFAULT_SETTING;
  const out: DecodeSetting[] = [base];
  for (let t = 1; t <= cores; t *= 2) out.push({ ...base, intraOpThreads: t });
  out.push({ ...base, spinning: false });
  out.push({ ...base, graphOptimization: 'basic' });
  out.push({ ...base, graphOptimization: 'extended' });
  out.push({ ...base, executionMode: 'parallel' });
  if (cores > 1) out.push({ ...base, intraOpThreads: 1, spinning: false });
  return out;
}

/** Feeds of one decode step: `batch` rows, each with one new token after `past` cached ones. */
export function decodeStepFeeds(config: ModelConfig, batch: number, past: number): Record<string, HostTensor> {
  const feeds: Record<string, HostTensor> = {
    input_ids: {
      dtype: 'int64',
      dims: [batch, 1],
      data: BigInt64Array.from({ length: batch }, (_, i) => BigInt((i * 13 + 5) % config.vocab_size)),
    },
    position_ids: { dtype: 'int64', dims: [batch, 1], data: new BigInt64Array(batch).fill(BigInt(past)) },
    attention_mask: { dtype: 'int64', dims: [batch, past + 1], data: new BigInt64Array(batch * (past + 1)).fill(1n) },
  };
  const dims = [batch, config.num_key_value_heads, past, config.head_dim];
  const size = dims.reduce((a, b) => a * b, 1);
  for (let l = 0; l < config.num_hidden_layers; l++) {
    feeds[pastKeyName(l)] = {
      dtype: 'float32',
      dims,
      data: Float32Array.from({ length: size }, (_, i) => Math.sin(i + l)),
    };
    feeds[pastValueName(l)] = {
      dtype: 'float32',
      dims,
      data: Float32Array.from({ length: size }, (_, i) => Math.cos(i + l)),
    };
  }
  return feeds;
}

export interface SweepOptions {
  batches: readonly number[];
  past: number;
  /** Passes over all settings; each pass runs `stepsPerBlock` counted steps per setting and batch size. */
  rounds: number;
  stepsPerBlock: number;
  cores: number;
  settings?: readonly DecodeSetting[];
  onRow?: (row: DecodeSettingRow) => void;
}

/**
 * Every candidate setting at every batch size, on the sampling graph `model` (its bytes). All sessions are
 * created first and the passes interleave them: the load of a shared machine drifts, and interleaving
 * spreads the drift over every setting instead of charging it to one.
 */
export async function sweepDecodeSettings(
  model: Uint8Array,
  config: ModelConfig,
  options: SweepOptions,
): Promise<DecodeSettingRow[]> {
  const settings = options.settings ?? candidateSettings(options.cores);
  const feeds = new Map(options.batches.map((b) => [b, decodeStepFeeds(config, b, options.past)]));
  const sessions: RuntimeSession[] = [];
  try {
    for (const setting of settings)
      sessions.push(await RuntimeSession.create(model, { providers: ['cpu'], ...sessionOptionsOf(setting) }));
    // A graph with the sampling head takes its inputs too (uniform 0.5, temperature 1).
    const inputs = new Set(sessions[0]?.inputNames ?? []);
    for (const [batch, f] of feeds) {
      if (inputs.has(SAMPLE_UNIFORM))
        f[SAMPLE_UNIFORM] = { dtype: 'float32', dims: [batch], data: new Float32Array(batch).fill(0.5) };
      if (inputs.has(SAMPLE_INV_TEMPERATURE))
        f[SAMPLE_INV_TEMPERATURE] = { dtype: 'float32', dims: [batch], data: new Float32Array(batch).fill(1) };
    }
    // Per setting and batch size: the best step of each block (one block per round).
    const blocks = settings.map(() => new Map<number, number[]>());
    // Steps come in short blocks per setting: a spinning pool keeps its cores busy for a moment after a run,
    // which would be charged to the next setting's step if single steps alternated.
    for (let round = 0; round < options.rounds; round++) {
      for (let i = 0; i < sessions.length; i++) {
        for (const batch of options.batches) {
          let best = Infinity;
          // The block's first step is not counted (the previous setting's spinning threads, first-run allocations).
          for (let step = -1; step < options.stepsPerBlock; step++) {
            const t = performance.now();
            await sessions[i]!.run(feeds.get(batch)!);
            if (step >= 0) best = Math.min(best, performance.now() - t);
          }
          blocks[i]!.set(batch, [...(blocks[i]!.get(batch) ?? []), best]);
        }
      }
    }
    const rows: DecodeSettingRow[] = [];
    settings.forEach((setting, i) => {
      for (const batch of options.batches) {
        // The median over rounds: one lucky (or unlucky) block does not decide.
        const stepMs = median(blocks[i]!.get(batch)!);
        const row = { setting, batch, stepMs, tokensPerSecond: (batch / stepMs) * 1000 };
        rows.push(row);
        options.onRow?.(row);
      }
    });
    return rows;
  } finally {
    for (const s of sessions) await s.release();
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The fastest setting at each batch size. */
export function bestPerBatch(rows: readonly DecodeSettingRow[]): Map<number, DecodeSettingRow> {
  const best = new Map<number, DecodeSettingRow>();
  for (const r of rows) if (!best.has(r.batch) || r.stepMs < best.get(r.batch)!.stepMs) best.set(r.batch, r);
  return best;
}
