/**
 * Which onnxruntime execution providers this machine can use. CPU is always bundled with onnxruntime-node;
 * CUDA needs the provider libraries (not in the npm package, fetched by `npm run setup:cuda`) and an NVIDIA
 * GPU with its driver. Loads onnxruntime, so it runs in a worker process, never in main or the web host.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface ProviderProbe {
  version: string | null;
  providers: { name: 'cpu' | 'cuda'; available: boolean; reason: string | null }[];
  hint: string | null;
}

const require = createRequire(import.meta.url);
export const CUDA_SETUP_HINT = 'run `npm run setup:cuda` on a machine with an NVIDIA GPU, its driver and internet access (see README, "CUDA")';

export function onnxruntimeBinDir(): string | null {
  try {
    const pkg = require.resolve('onnxruntime-node/package.json');
    return join(dirname(pkg), 'bin', 'napi-v6', process.platform, process.arch);
  } catch {
    return null;
  }
}

export function probeProviders(options: { hasNvidiaGpu: boolean }): ProviderProbe {
  let version: string;
  try {
    version = (JSON.parse(readFileSync(require.resolve('onnxruntime-node/package.json'), 'utf8')) as { version: string }).version;
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
    cpu = { name: 'cpu', available: false, reason: `the onnxruntime binding failed to load: ${(error as Error).message.split('\n')[0]}` };
  }
  const binDir = onnxruntimeBinDir();
  const cudaLib = binDir ? join(binDir, 'libonnxruntime_providers_cuda.so') : null;
  let cuda: ProviderProbe['providers'][number];
  if (process.platform !== 'linux' && process.platform !== 'win32') cuda = { name: 'cuda', available: false, reason: `CUDA is not offered on ${process.platform}` };
  else if (!options.hasNvidiaGpu) cuda = { name: 'cuda', available: false, reason: 'no NVIDIA GPU found (nvidia-smi is missing or lists none)' };
  else if (!cudaLib || !existsSync(cudaLib)) cuda = { name: 'cuda', available: false, reason: `the CUDA provider libraries are not installed; ${CUDA_SETUP_HINT}` };
  else cuda = { name: 'cuda', available: true, reason: 'provider libraries present; sessions fall back to CPU with the reason if they fail to load' };
  return { version, providers: [cpu, cuda], hint: cuda.available ? null : options.hasNvidiaGpu ? CUDA_SETUP_HINT : null };
}
