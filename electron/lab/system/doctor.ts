/** `t1lab doctor` and the System page: what this machine has, and how to get what it lacks. */
import { cpus, totalmem } from 'node:os';
import type { DoctorReport, ProviderStatus } from '../../domain/system';
import { detectBubblewrap } from '../../../native/sandbox/detect';
import { electronInfo } from './electron-info';
import { listNvidiaGpus } from './gpus';

export interface OnnxruntimeProbe {
  version: string | null;
  providers: ProviderStatus[];
  hint: string | null;
}

export interface DoctorDeps {
  dataDir: string;
  /** Loads onnxruntime in a worker process and reports its providers. */
  probeOnnxruntime: (hasNvidiaGpu: boolean) => Promise<OnnxruntimeProbe>;
}

export async function runDoctor(deps: DoctorDeps): Promise<DoctorReport> {
  const [sandbox, gpus] = await Promise.all([detectBubblewrap({ fresh: true }), listNvidiaGpus()]);
  let onnxruntime: OnnxruntimeProbe;
  try {
    onnxruntime = await deps.probeOnnxruntime(gpus.length > 0);
  } catch (error) {
    const reason = `the probe worker failed: ${(error as Error).message}`;
    onnxruntime = { version: null, providers: [{ name: 'cpu', available: false, reason }, { name: 'cuda', available: false, reason }], hint: 'run `npm ci`' };
  }
  const electron = electronInfo();
  const cpuList = cpus();
  const missing: DoctorReport['missing'] = [];
  if (!electron.binary && electron.hint) missing.push({ part: 'electron binary', hint: electron.hint });
  if (!sandbox.ok && sandbox.hint) missing.push({ part: 'sandbox', hint: sandbox.hint });
  for (const p of onnxruntime.providers) if (!p.available && p.reason) missing.push({ part: `onnxruntime ${p.name}`, hint: p.reason });
  return {
    node: process.versions.node,
    platform: `${process.platform}-${process.arch}`,
    electron: { version: electron.version, binary: electron.binary, hint: electron.hint },
    sandbox: { backend: sandbox.backend, version: sandbox.version, ok: sandbox.ok, hint: sandbox.hint },
    onnxruntime,
    cpu: { cores: cpuList.length, model: cpuList[0]?.model.trim() ?? 'unknown' },
    memoryBytes: totalmem(),
    gpus,
    dataDir: deps.dataDir,
    missing,
    generatedAt: new Date().toISOString(),
  };
}
