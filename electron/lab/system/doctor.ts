/** `t1lab doctor` and the System page: what this machine has, and how to get what it lacks. */
import { cpus, totalmem } from 'node:os';
import type { DoctorReport, ProviderStatus } from '../../domain/system';
import { detectBubblewrap } from '../../../native/sandbox/detect';
import { electronInfo } from './electron-info';
import { listNvidiaGpus } from './gpus';
import { DEFAULT_BASE_TAG, detectContainerEngine, inspectImage } from '../../../native/sandbox/container';
import { loadContainersConfig } from '../containers/settings';

/** podman and docker: installed? answering? able to start a container on the local base image? */
async function probeEngines(dataDir: string): Promise<NonNullable<DoctorReport['containers']>> {
  let base = DEFAULT_BASE_TAG;
  try {
    base = loadContainersConfig(dataDir).baseImages?.['*'] ?? DEFAULT_BASE_TAG;
  } catch {
    // a malformed config file is reported where it is used
  }
  return Promise.all(
    (['podman', 'docker'] as const).map(async (engine) => {
      const first = await detectContainerEngine(engine);
      const trial =
        first.serverVersion && (await inspectImage(engine, base)) ? await detectContainerEngine(engine, base) : first;
      const detail =
        first.serverVersion && trial.canRun === null
          ? `${trial.detail}; not tried on a container (no local image ${base}: \`t1lab images base\` builds it)`
          : trial.detail;
      return {
        engine,
        installed: trial.cli,
        version: trial.serverVersion,
        canRun: trial.canRun,
        detail,
        hint: trial.hint,
      };
    }),
  );
}

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
  const [sandbox, gpus, containers] = await Promise.all([
    detectBubblewrap({ fresh: true }),
    listNvidiaGpus(),
    probeEngines(deps.dataDir),
  ]);
  let onnxruntime: OnnxruntimeProbe;
  try {
    onnxruntime = await deps.probeOnnxruntime(gpus.length > 0);
  } catch (error) {
    const reason = `the probe worker failed: ${(error as Error).message}`;
    onnxruntime = {
      version: null,
      providers: [
        { name: 'cpu', available: false, reason },
        { name: 'cuda', available: false, reason },
      ],
      hint: 'run `npm ci`',
    };
  }
  const electron = electronInfo();
  const cpuList = cpus();
  const missing: DoctorReport['missing'] = [];
  if (!electron.binary && electron.hint) missing.push({ part: 'electron binary', hint: electron.hint });
  if (!sandbox.ok && sandbox.hint) missing.push({ part: 'sandbox', hint: sandbox.hint });
  for (const p of onnxruntime.providers)
    if (!p.available && p.reason) missing.push({ part: `onnxruntime ${p.name}`, hint: p.reason });
  if (!containers.some((c) => c.version !== null) && containers[0])
    missing.push({
      part: 'container engine',
      hint: `${containers[0].detail}; ${containers[0].hint ?? ''} (tasks that ship an image need it)`,
    });
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
    containers,
    missing,
    generatedAt: new Date().toISOString(),
  };
}
