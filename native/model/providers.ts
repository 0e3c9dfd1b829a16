/**
 * Which onnxruntime execution providers this machine can use. CPU is always bundled with onnxruntime-node;
 * CUDA needs the provider libraries (not in the npm package, fetched by `npm run setup:cuda`) and an NVIDIA
 * GPU with its driver. Loads onnxruntime, so it runs in a worker process, never in main or the web host.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { GraphBuilder } from '../onnx/graph';
// Loaded lazily: this module must load (and report) where onnxruntime-node does not.
import type { ExecutionProvider, RuntimeSession } from '../onnx/runtime';

export interface ProviderProbe {
  version: string | null;
  providers: { name: 'cpu' | 'cuda'; available: boolean; reason: string | null }[];
  hint: string | null;
}

const require = createRequire(import.meta.url);
export const CUDA_SETUP_HINT =
  'run `npm run setup:cuda` on a machine with an NVIDIA GPU, its driver and internet access (see docs/guide/install-and-doctor.md, "CUDA (opt-in)")';

export function onnxruntimeBinDir(): string | null {
  try {
    const pkg = require.resolve('onnxruntime-node/package.json');
    return join(dirname(pkg), 'bin', 'napi-v6', process.platform, process.arch);
  } catch {
    return null;
  }
}

/**
 * What this machine's onnxruntime can use. Where the CUDA libraries are present, a one-node session is
 * actually created on CUDA: the report is the real outcome (a missing cuDNN, a driver too old), not a
 * guess from files on disk.
 */
export async function probeProviders(options: { hasNvidiaGpu: boolean }): Promise<ProviderProbe> {
  let version: string;
  try {
    version = (
      JSON.parse(readFileSync(require.resolve('onnxruntime-node/package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return {
      version: null,
      providers: [
        { name: 'cpu', available: false, reason: 'onnxruntime-node is not installed' },
        { name: 'cuda', available: false, reason: 'onnxruntime-node is not installed' },
      ],
      hint: 'run `npm ci` in the app folder',
    };
  }
  let cpu: ProviderProbe['providers'][number];
  try {
    require('onnxruntime-node');
    cpu = { name: 'cpu', available: true, reason: null };
  } catch (error) {
    cpu = {
      name: 'cpu',
      available: false,
      reason: `the onnxruntime binding failed to load: ${(error as Error).message.split('\n')[0]}`,
    };
  }
  const binDir = onnxruntimeBinDir();
  const cudaLib = binDir ? join(binDir, 'libonnxruntime_providers_cuda.so') : null;
  let cuda: ProviderProbe['providers'][number];
  if (process.platform !== 'linux' && process.platform !== 'win32')
    cuda = { name: 'cuda', available: false, reason: `CUDA is not offered on ${process.platform}` };
  else if (!options.hasNvidiaGpu)
    cuda = { name: 'cuda', available: false, reason: 'no NVIDIA GPU found (nvidia-smi is missing or lists none)' };
  else if (!cudaLib || !existsSync(cudaLib))
    cuda = {
      name: 'cuda',
      available: false,
      reason: `the CUDA provider libraries are not installed; ${CUDA_SETUP_HINT}`,
    };
  else {
    const outcome = await tryCudaSession();
    cuda = outcome.ok
      ? { name: 'cuda', available: true, reason: null }
      : { name: 'cuda', available: false, reason: `the CUDA provider failed to start a session: ${outcome.reason}` };
  }
  return {
    version,
    providers: [cpu, cuda],
    hint: cuda.available ? null : options.hasNvidiaGpu ? CUDA_SETUP_HINT : null,
  };
}

/** Create and run a one-node session on CUDA only; its error, first line, when it fails. */
export async function tryCudaSession(): Promise<{ ok: true } | { ok: false; reason: string }> {
  const g = new GraphBuilder('cuda-probe');
  g.input('x', 'float32', [4]);
  g.output(g.op('Add', ['x', 'x']), 'y', 'float32', [4]);
  try {
    const { RuntimeSession } = await import('../onnx/runtime');
    const session = await RuntimeSession.create(g.toModel(), { providers: ['cuda'], logSeverity: 4 });
    await session.run({ x: { dtype: 'float32', dims: [4], data: new Float32Array(4) } });
    await session.release();
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: firstLine(error) };
  }
}

export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 400);
}

/** What the user asked for: 'auto' (CUDA when it loads, else CPU), or one provider, honoured or failing. */
export type ProviderChoice = 'auto' | ExecutionProvider;

export interface SessionPlacement {
  session: RuntimeSession;
  provider: ExecutionProvider;
  /** Why a requested or preferred provider was not used (null when the first choice worked). */
  fallbackReason: string | null;
  createMs: number;
}

export interface PlacementOptions {
  choice: ProviderChoice;
  intraOpThreads?: number;
  interOpThreads?: number;
  /** onnxruntime's graph optimizations (default all; float64 graphs need 'basic': fused kernels are float32). */
  graphOptimization?: 'disabled' | 'basic' | 'extended' | 'all';
  /** See RuntimeSessionOptions.executionMode / spinning (decode settings are measured: decode-defaults.ts). */
  executionMode?: 'sequential' | 'parallel';
  spinning?: boolean;
  /** onnxruntime's CPU arena (default on; see RuntimeSessionOptions.memoryArena). */
  memoryArena?: boolean;
  /** Whether this machine could use CUDA at all (an NVIDIA GPU and the provider libraries); 'auto' skips CUDA otherwise. */
  cudaPossible?: boolean;
}

export class ProviderUnavailableError extends Error {
  override readonly name = 'ProviderUnavailableError';
}

/** Whether CUDA is worth trying here: an NVIDIA device node and the provider library beside the binding. */
export function cudaLikely(): { possible: boolean; reason: string | null } {
  if (process.platform !== 'linux' && process.platform !== 'win32')
    return { possible: false, reason: `CUDA is not offered on ${process.platform}` };
  if (process.platform === 'linux' && !existsSync('/dev/nvidiactl'))
    return { possible: false, reason: 'no NVIDIA GPU found (no /dev/nvidiactl)' };
  const binDir = onnxruntimeBinDir();
  const lib = binDir
    ? join(binDir, process.platform === 'win32' ? 'onnxruntime_providers_cuda.dll' : 'libonnxruntime_providers_cuda.so')
    : null;
  if (!lib || !existsSync(lib))
    return { possible: false, reason: `the CUDA provider libraries are not installed; ${CUDA_SETUP_HINT}` };
  return { possible: true, reason: null };
}

/**
 * Create a session on the chosen provider. 'auto' tries CUDA (with CPU for the nodes CUDA lacks) where it
 * is possible and falls back to CPU with the reason recorded; an explicit 'cuda' fails with the reason.
 */
export async function createPlacedSession(
  model: Uint8Array | string,
  options: PlacementOptions,
): Promise<SessionPlacement> {
  const threads = {
    intraOpThreads: options.intraOpThreads,
    interOpThreads: options.interOpThreads,
    graphOptimization: options.graphOptimization,
    executionMode: options.executionMode,
    spinning: options.spinning,
    memoryArena: options.memoryArena,
  };
  const started = performance.now();
  const { RuntimeSession } = await import('../onnx/runtime');
  const cpu = async (fallbackReason: string | null): Promise<SessionPlacement> => ({
    session: await RuntimeSession.create(model, { providers: ['cpu'], ...threads }),
    provider: 'cpu',
    fallbackReason,
    createMs: performance.now() - started,
  });
  if (options.choice === 'cpu') return cpu(null);
  const likely =
    options.cudaPossible === undefined
      ? cudaLikely()
      : { possible: options.cudaPossible, reason: 'CUDA is not possible on this machine' };
  if (!likely.possible) {
    if (options.choice === 'cuda')
      throw new ProviderUnavailableError(`the CUDA execution provider was requested but ${likely.reason}`);
    return cpu(likely.reason);
  }
  try {
    // onnxruntime logs a failed provider load itself; we report the reason, so its log stays quiet.
    const session = await RuntimeSession.create(model, { providers: ['cuda', 'cpu'], ...threads, logSeverity: 4 });
    return { session, provider: 'cuda', fallbackReason: null, createMs: performance.now() - started };
  } catch (error) {
    const reason = `the CUDA provider failed to load: ${firstLine(error)}`;
    if (options.choice === 'cuda')
      throw new ProviderUnavailableError(`the CUDA execution provider was requested but ${reason}`);
    return cpu(reason);
  }
}
