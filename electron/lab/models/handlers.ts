/** The `models.*` methods: checkpoints on disk (read here, no onnxruntime) and the playground (policy worker). */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Handlers } from '../../ipc/common/router';
import type { modelsContract } from '../../ipc/common/contracts/models';
import { trainingFolderLineage } from '../runs/lineage';
import { LabError } from '../../ipc/common/errors';
import type { ModelSummary } from '../../domain/models';
import { listCheckpoints, type CheckpointSummary } from '../../../native/model/checkpoint';
import { trainingRunsDir } from '../training/run-folder';
import { countActiveParameters, parseModelConfig } from '../../../native/model/config';
import type { PolicyInfo } from '../../../native/model/policy-api';
import type { HostContext } from '../host-context';
import { policyContract } from '../../processes/contracts/policy';
import { addModelFolder, modelFolders, removeModelFolder } from './folders';
import { appRoot } from '../app-paths';

const vocabCache = new Map<string, { mtimeMs: number; size: number | null }>();

/**
 * Entries of a tokenizer.json's vocabulary plus added tokens not in it (the listing reads no tokenizer, to
 * stay fast); cached by modification time.
 */
export function tokenizerSize(dir: string): number | null {
  const file = join(dir, 'tokenizer.json');
  if (!existsSync(file)) return null;
  const mtimeMs = statSync(file).mtimeMs;
  const cached = vocabCache.get(file);
  if (cached?.mtimeMs === mtimeMs) return cached.size;
  let size: number | null;
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as {
      model?: { vocab?: Record<string, number> | unknown[] };
      added_tokens?: { content: string }[];
    };
    const vocab = json.model?.vocab;
    const words = Array.isArray(vocab) ? vocab.length : vocab ? Object.keys(vocab).length : 0;
    const inVocab = (t: string) => (vocab && !Array.isArray(vocab) ? Object.hasOwn(vocab, t) : false);
    size = words + (json.added_tokens ?? []).filter((t) => !inVocab(t.content)).length || null;
  } catch {
    size = null;
  }
  vocabCache.set(file, { mtimeMs, size });
  return size;
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Where the lab keeps checkpoints of its own (`model init --out` may put them anywhere else). */
export function checkpointsRoot(dataDir: string): string {
  return join(dataDir, 'checkpoints');
}

export function toModelSummary(c: CheckpointSummary, placed: PolicyInfo | undefined): ModelSummary {
  let active: number | null = null;
  if (c.config) {
    try {
      active = countActiveParameters(parseModelConfig(c.config));
    } catch {
      active = null;
    }
  }
  const lineage = trainingFolderLineage(c.path);
  return {
    path: c.path,
    name: c.name,
    format: c.format,
    status: c.status,
    error: c.error ? `${c.error.message} [${c.error.code}]` : null,
    parameters: c.parameters,
    activeParameters: active,
    totalBytes: c.totalBytes,
    files: c.files.map((f) => ({ name: f.name, bytes: f.bytes, sha256: f.sha256 })),
    config: c.config ? { ...c.config } : null,
    tokenizerVocab: c.tokenizer?.vocabSize ?? tokenizerSize(c.path),
    provider: placed ? { name: placed.provider, fallbackReason: placed.providerFallbackReason } : null,
    lineage: lineage ? { trainingRun: lineage.trainingRun, stage: lineage.stage, step: lineage.step } : null,
    snapshot: lineage?.snapshot ?? false,
  };
}

/** The bundled checkpoints' folder: the nano reproduction's SFT and RL policies, shipped with the app. */
export function bundledModelsDir(): string {
  return join(appRoot(), 'models');
}

/**
 * Every checkpoint the lab knows: its own checkpoints folder, training runs' checkpoints
 * (training/<run>/checkpoints/step-N), the user's model folders, `roots`, and the bundled models last. A
 * checkpoint reached through two folders (a folder and its parent, a link) is listed once.
 */
export function listModels(
  dataDir: string,
  roots: readonly string[],
  placedOf: (path: string) => PolicyInfo | undefined = () => undefined,
  snapshots = false,
): { roots: string[]; checkpoints: ModelSummary[] } {
  const all = [
    ...new Set([
      checkpointsRoot(dataDir),
      trainingRunsDir(dataDir),
      ...modelFolders(dataDir),
      ...roots,
      bundledModelsDir(),
    ]),
  ];
  const checkpoints: ModelSummary[] = [];
  const seen = new Set<string>();
  for (const root of all) {
    for (const c of listCheckpoints(root).checkpoints) {
      const real = realOrSame(c.path);
      if (seen.has(real)) continue;
      seen.add(real);
      const summary = toModelSummary(c, placedOf(c.path));
      if (summary.snapshot && !snapshots) continue;
      checkpoints.push(summary);
    }
  }
  return { roots: all, checkpoints };
}

export function modelsHandlers(ctx: HostContext): Handlers<typeof modelsContract> {
  const placed = new Map<string, PolicyInfo>();
  /** Streamed samples in flight: the worker's stream id -> the caller's connection and sample id. */
  const streams = new Map<string, { connectionId: string; sampleId: string }>();
  let wired = false;
  const streamKey = (connectionId: string, sampleId: string) => `${connectionId}/${sampleId}`;
  const worker = () => {
    // The full client (events and policy.stop), not the engine's PolicyCaller view of it.
    const w = ctx.workers.get('policy', policyContract);
    if (!wired) {
      wired = true;
      w.on('policy.token', (e) => {
        const route = streams.get(e.streamId);
        if (!route) return;
        const token = {
          id: e.id,
          text: e.text ?? '',
          logprob: e.logprob,
          experts: null,
          gates: null,
          alternatives: e.alternatives.map((a) => ({ id: a.id, text: a.text ?? '', logprob: a.logprob })),
        };
        ctx.emitTo(route.connectionId, 'models.sampleToken', { sampleId: route.sampleId, index: e.index, token });
      });
    }
    return w;
  };
  return {
    'models.list': ({ roots, snapshots }) => listModels(ctx.dataDir, roots, (path) => placed.get(path), snapshots),
    'models.folders': () => ({ folders: modelFolders(ctx.dataDir) }),
    'models.addFolder': ({ path }) => addModelFolder(ctx.dataDir, path, checkpointsRoot(ctx.dataDir)),
    'models.removeFolder': ({ path }) => ({ folders: removeModelFolder(ctx.dataDir, path) }),
    async 'models.stopSample'({ sampleId }, { connectionId }) {
      const key = streamKey(connectionId, sampleId);
      if (!streams.has(key)) return { stopped: false };
      return worker().call('policy.stop', { streamId: key });
    },
    async 'models.sample'(input, { signal, connectionId }) {
      const policy = worker();
      const streamId = input.sampleId !== undefined ? streamKey(connectionId, input.sampleId) : undefined;
      // The Models page holds what it sampled (one holder for the page); onnx evaluations share the same session.
      const info = await policy.call(
        'policy.load',
        {
          checkpoint: input.path,
          settings: { provider: input.provider, ...(input.threads ? { intraOpThreads: input.threads } : {}) },
          holder: 'models-page',
        },
        { timeoutMs: 300_000 },
      );
      placed.set(input.path, info);
      if (streamId !== undefined) streams.set(streamId, { connectionId, sampleId: input.sampleId! });
      const r = await policy
        .call(
          'policy.generate',
          {
            checkpoint: input.path,
            prompt: input.prompt,
            options: {
              maxTokens: input.maxTokens,
              temperature: input.temperature,
              topP: input.topP,
              topK: input.topK,
              seed: input.seed,
              stopSequences: input.stop,
              alternatives: input.alternatives,
            },
            withText: true,
            ...(streamId !== undefined ? { streamId } : {}),
          },
          { signal },
        )
        .finally(() => streamId !== undefined && streams.delete(streamId));
      if (!r.tokenTexts) throw new LabError('UNAVAILABLE', `${input.path} has no tokenizer to show token texts`);
      return {
        promptTokens: r.promptIds.length,
        tokens: r.tokens.map((t, i) => ({
          id: t.id,
          text: r.tokenTexts![i] ?? '',
          logprob: t.logprob,
          experts: t.routing?.experts ?? null,
          gates: t.routing?.gates ?? null,
          ...(t.alternatives
            ? {
                alternatives: t.alternatives.map((a, j) => ({
                  id: a.id,
                  text: r.alternativeTexts?.[i]?.[j] ?? '',
                  logprob: a.logprob,
                })),
              }
            : {}),
        })),
        stopReason: r.stopReason,
        seed: r.seed,
        provider: info.provider,
        providerFallbackReason: info.providerFallbackReason,
        numExperts: info.kind === 't1-moe' ? numExpertsOf(input.path, ctx) : null,
        timing: { prefillMs: r.timing.prefillMs, decodeMs: r.timing.decodeMs },
      };
    },
  };
}

function numExpertsOf(path: string, _ctx: HostContext): number | null {
  for (const c of listCheckpoints(path, { maxDepth: 0 }).checkpoints) if (c.config) return c.config.num_experts;
  return null;
}
