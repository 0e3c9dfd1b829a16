/**
 * The one place onnxruntime-node is loaded. Sessions take and give plain tensors (`HostTensor`) so that
 * nothing above native/ sees onnxruntime's types. Which execution provider a session gets is decided in
 * native/model/providers.ts; this file only creates what it is told and reports failures as they are.
 */
import * as ort from 'onnxruntime-node';
import type { DataType, TensorData } from './proto';

export interface HostTensor {
  dtype: DataType;
  dims: readonly number[];
  data: TensorData;
}

export type ExecutionProvider = 'cpu' | 'cuda';

export interface RuntimeSessionOptions {
  /** Providers in order of preference; onnxruntime assigns each node to the first that implements it. */
  providers: readonly ExecutionProvider[];
  /** Threads inside one operator (0: onnxruntime's default, one per physical core). */
  intraOpThreads?: number;
  /** Threads across independent operators (sequential execution ignores it). */
  interOpThreads?: number;
  graphOptimization?: 'disabled' | 'basic' | 'extended' | 'all';
  /** 'parallel' runs independent operators on the inter-op pool (default sequential). */
  executionMode?: 'sequential' | 'parallel';
  /**
   * Whether idle pool threads spin waiting for work (onnxruntime's default: yes). Spinning lowers a step's
   * latency on idle cores and burns the cores of other processes on a shared machine.
   */
  spinning?: boolean;
  /** onnxruntime's own log level: 0 verbose .. 4 fatal. */
  logSeverity?: 0 | 1 | 2 | 3 | 4;
  /**
   * Keep onnxruntime's CPU arena and memory patterns (default true). A session's arena keeps its peak
   * forever; training graphs peak at gigabytes (logits and their gradients per micro-batch), and a trainer
   * caches a dozen of them, so they release their activations after each run instead.
   */
  memoryArena?: boolean;
  /**
   * Write onnxruntime's profile (a Chrome-trace JSON of every kernel's time) to `<prefix>_<date>.json` when
   * the session is released. Default: the `T1LAB_ORT_PROFILE` environment variable, so that any command's
   * sessions can be profiled without a flag of its own.
   */
  profilePrefix?: string;
}

/** Set to a path prefix to profile every onnxruntime session a process makes (see `profilePrefix`). */
export const ORT_PROFILE_ENV = 'T1LAB_ORT_PROFILE';

export function onnxruntimeVersion(): string {
  return ort.env.versions.node ?? ort.env.versions.common;
}

/** Providers this onnxruntime binary was built to use ('cuda' needs its libraries beside it to load). */
export function supportedBackends(): { name: string; bundled: boolean }[] {
  const list = (ort as unknown as { listSupportedBackends?: () => { name: string; bundled: boolean }[] })
    .listSupportedBackends;
  return list ? list() : [{ name: 'cpu', bundled: true }];
}

function toOrt(t: HostTensor): ort.Tensor {
  const type = t.dtype === 'float16' ? 'float16' : t.dtype;
  return new ort.Tensor(type, t.data as never, t.dims as number[]);
}

function fromOrt(t: ort.Tensor): HostTensor {
  return {
    dtype: (t.type === 'float16' ? 'float16' : t.type) as DataType,
    dims: [...t.dims],
    data: t.data as TensorData,
  };
}

export class RuntimeSession {
  private released = false;

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly providers: readonly ExecutionProvider[],
  ) {}

  /** A model as bytes, or the path of a .onnx file (needed when its weights are external data beside it). */
  static async create(model: Uint8Array | string, options: RuntimeSessionOptions): Promise<RuntimeSession> {
    const profile = options.profilePrefix ?? (process.env[ORT_PROFILE_ENV] || undefined);
    const sessionOptions: ort.InferenceSession.SessionOptions = {
      executionProviders: options.providers.map((p) => (p === 'cuda' ? { name: 'cuda' } : { name: 'cpu' })),
      intraOpNumThreads: options.intraOpThreads ?? 0,
      interOpNumThreads: options.interOpThreads ?? 0,
      graphOptimizationLevel: options.graphOptimization ?? 'all',
      logSeverityLevel: options.logSeverity ?? 3,
      ...(options.executionMode ? { executionMode: options.executionMode } : {}),
      ...(options.memoryArena === false ? { enableCpuMemArena: false, enableMemPattern: false } : {}),
      ...(profile ? { enableProfiling: true, profileFilePrefix: profile } : {}),
      // Session config entries (onnxruntime_session_options_config_keys.h), flattened by the binding.
      ...(options.spinning === false
        ? { extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } } }
        : {}),
    };
    const session =
      typeof model === 'string'
        ? await ort.InferenceSession.create(model, sessionOptions)
        : await ort.InferenceSession.create(model, sessionOptions);
    return new RuntimeSession(session, options.providers);
  }

  get inputNames(): readonly string[] {
    return this.session.inputNames;
  }

  get outputNames(): readonly string[] {
    return this.session.outputNames;
  }

  /** Declared input shapes (symbolic axes as names) and types, from the model. */
  inputShapes(): Record<string, { dtype: string; shape: (number | string)[] }> {
    const out: Record<string, { dtype: string; shape: (number | string)[] }> = {};
    for (const m of this.session.inputMetadata) {
      if (m.isTensor)
        out[m.name] = { dtype: m.type, shape: m.shape.map((d) => (typeof d === 'number' ? d : String(d))) };
    }
    return out;
  }

  /** Run with `feeds`; returns the requested outputs (all by default). */
  async run(feeds: Record<string, HostTensor>, outputs?: readonly string[]): Promise<Record<string, HostTensor>> {
    if (this.released) throw new Error('the session was released');
    const ortFeeds: Record<string, ort.Tensor> = {};
    for (const [name, t] of Object.entries(feeds)) ortFeeds[name] = toOrt(t);
    const result = outputs ? await this.session.run(ortFeeds, outputs as string[]) : await this.session.run(ortFeeds);
    const out: Record<string, HostTensor> = {};
    for (const [name, t] of Object.entries(result)) out[name] = fromOrt(t as ort.Tensor);
    return out;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.session.release();
  }
}

// Convenience constructors for feeds.
export const f32 = (data: ArrayLike<number>, dims: readonly number[]): HostTensor => ({
  dtype: 'float32',
  dims,
  data: Float32Array.from(data),
});
export const f64 = (data: ArrayLike<number>, dims: readonly number[]): HostTensor => ({
  dtype: 'float64',
  dims,
  data: Float64Array.from(data),
});
export const i64 = (data: ArrayLike<number | bigint>, dims: readonly number[]): HostTensor => ({
  dtype: 'int64',
  dims,
  data: BigInt64Array.from(Array.from(data, (v) => BigInt(v))),
});
export const bool = (data: ArrayLike<boolean | number>, dims: readonly number[]): HostTensor => ({
  dtype: 'bool',
  dims,
  data: Uint8Array.from(Array.from(data, (v) => (v ? 1 : 0))),
});
