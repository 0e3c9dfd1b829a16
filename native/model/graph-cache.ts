/**
 * Training/scoring sessions cached per shape. Building a graph takes tens of milliseconds and creating its
 * session hundreds, so a trainer asks this cache for (batch, length bucket, options) and reuses what it
 * built; the least recently used sessions are released past `capacity`. Every build and session creation
 * is timed and logged.
 */
import type { FloatType } from '../onnx/proto';
import type { ModelConfig } from './config';
import type { LossDefinition } from './losses';
import { TRAINING_EXPERT_COMPUTE } from './policy-model';
import { createPlacedSession, type ProviderChoice, type SessionPlacement } from './providers';
import { buildTrainingGraph, lengthBucket, type BuiltGraph } from './training-graph';
import type { ExpertCompute } from './transformer';

export interface TrainingShape {
  batch: number;
  /** Any length: it is rounded up to its bucket (`lengthBucket`). */
  length: number;
  forcedRouting: boolean;
  loss: LossDefinition | null;
  dtype?: FloatType;
  expertCompute?: ExpertCompute;
  /** The sampling temperature the log-probs are of (default 1; see TrainingGraphOptions). */
  temperature?: number;
  /** The vocabulary head at the batch's `headPositions` only (see TrainingGraphOptions.headPositions). */
  headPositions?: boolean;
  /** Causal attention in query blocks (default: on unless T1LAB_FULL_ATTENTION=1; a number: that block size; see TrainingGraphOptions). */
  causalBlocks?: boolean | number;
  /** Shared prompt prefixes: prefix rows and their padded length (see TrainingGraphOptions.sharedPrefix). */
  sharedPrefix?: { groups: number; length: number };
}

/** Set to 1 to build training graphs with the full [T, T] attention product (the benchmark's previous path). */
export const FULL_ATTENTION_ENV = 'T1LAB_FULL_ATTENTION';
/** Set to 1 to run the vocabulary head on every position whatever a caller asks (the benchmark's previous path). */
export const FULL_HEAD_ENV = 'T1LAB_FULL_HEAD';

export interface CachedGraph {
  key: string;
  batch: number;
  length: number;
  graph: Omit<BuiltGraph, 'bytes'>;
  placement: SessionPlacement;
}

export interface GraphCacheOptions {
  provider: ProviderChoice;
  intraOpThreads?: number;
  interOpThreads?: number;
  /** Sessions kept at most (default 6). */
  capacity?: number;
  log?: (message: string) => void;
}

export class TrainingGraphCache {
  private readonly entries = new Map<string, Promise<CachedGraph>>();
  private readonly stats = { hits: 0, misses: 0 };

  constructor(
    private readonly config: ModelConfig,
    private readonly options: GraphCacheOptions,
  ) {}

  get counts(): { hits: number; misses: number; size: number } {
    return { ...this.stats, size: this.entries.size };
  }

  async get(shape: TrainingShape): Promise<CachedGraph> {
    const length = lengthBucket(shape.length);
    const dtype = shape.dtype ?? 'float32';
    const expertCompute = shape.expertCompute ?? TRAINING_EXPERT_COMPUTE;
    const blocks = shape.causalBlocks ?? process.env[FULL_ATTENTION_ENV] !== '1';
    const heads = (shape.headPositions ?? false) && process.env[FULL_HEAD_ENV] !== '1';
    const key = `B${shape.batch}-T${length}-${dtype}-${expertCompute}-${shape.forcedRouting ? 'forced' : 'topk'}-${shape.loss?.name ?? 'score'}${(shape.temperature ?? 1) === 1 ? '' : `-t${shape.temperature}`}${heads ? '-heads' : ''}${blocks === true ? '' : blocks === false ? '-fullattn' : `-blocks${blocks}`}${shape.sharedPrefix ? `-prefix${shape.sharedPrefix.groups}x${shape.sharedPrefix.length}` : ''}`;
    const known = this.entries.get(key);
    if (known) {
      this.stats.hits++;
      this.entries.delete(key); // re-insert: most recently used last
      this.entries.set(key, known);
      return known;
    }
    this.stats.misses++;
    const pending = this.create(key, {
      ...shape,
      length,
      dtype,
      expertCompute,
      temperature: shape.temperature ?? 1,
      headPositions: heads,
      causalBlocks: blocks,
    });
    this.entries.set(key, pending);
    pending.catch(() => this.entries.delete(key));
    await this.evict();
    return pending;
  }

  private async create(
    key: string,
    shape: Required<Omit<TrainingShape, 'loss' | 'sharedPrefix'>> &
      Pick<TrainingShape, 'sharedPrefix'> & { loss: LossDefinition | null },
  ): Promise<CachedGraph> {
    const { bytes, ...graph } = buildTrainingGraph(this.config, {
      batch: shape.batch,
      length: shape.length,
      dtype: shape.dtype,
      expertCompute: shape.expertCompute,
      forcedRouting: shape.forcedRouting,
      loss: shape.loss,
      temperature: shape.temperature,
      headPositions: shape.headPositions,
      causalBlocks: shape.causalBlocks,
      sharedPrefix: shape.sharedPrefix,
    });
    const placement = await createPlacedSession(bytes, {
      choice: this.options.provider,
      intraOpThreads: this.options.intraOpThreads,
      interOpThreads: this.options.interOpThreads,
      // Extended fusions (e.g. x * sigmoid(x) -> QuickGelu) have float32 kernels only.
      graphOptimization: shape.dtype === 'float64' ? 'basic' : 'all',
      // Without this, every cached shape keeps its peak activations (13 GB RSS after a few PPO steps).
      memoryArena: false,
    });
    this.options.log?.(
      `training graph ${key}: ${graph.nodeCount} nodes, ${(bytes.length / 1024).toFixed(0)} KiB, built in ${graph.buildMs.toFixed(0)} ms; ` +
        `session on ${placement.provider} in ${placement.createMs.toFixed(0)} ms${placement.fallbackReason ? ` (${placement.fallbackReason})` : ''}`,
    );
    return { key, batch: shape.batch, length: shape.length, graph, placement };
  }

  private async evict(): Promise<void> {
    const capacity = this.options.capacity ?? 6;
    while (this.entries.size > capacity) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, Promise<CachedGraph>];
      this.entries.delete(oldestKey);
      const entry = await oldest.catch(() => null);
      await entry?.placement.session.release();
    }
  }

  async clear(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    for (const p of all) await (await p.catch(() => null))?.placement.session.release();
  }
}
