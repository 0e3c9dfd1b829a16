/** The `models.*` methods: checkpoints on disk (read here, no onnxruntime) and the playground (policy worker). */
import { join } from 'node:path';
import type { Handlers } from '../../ipc/common/router';
import type { modelsContract } from '../../ipc/common/contracts/models';
import { LabError } from '../../ipc/common/errors';
import type { ModelSummary } from '../../domain/models';
import { listCheckpoints, type CheckpointSummary } from '../../../native/model/checkpoint';
import { countActiveParameters, parseModelConfig } from '../../../native/model/config';
import type { PolicyInfo } from '../../../native/model/policy-api';
import type { HostContext } from '../host-context';
import { policyWorker } from './policy-engine';

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
    tokenizerVocab: c.tokenizer?.vocabSize ?? null,
    provider: placed ? { name: placed.provider, fallbackReason: placed.providerFallbackReason } : null,
  };
}

export function modelsHandlers(ctx: HostContext): Handlers<typeof modelsContract> {
  const placed = new Map<string, PolicyInfo>();
  return {
    'models.list': ({ roots }) => {
      const all = [checkpointsRoot(ctx.dataDir), ...roots];
      const checkpoints: ModelSummary[] = [];
      for (const root of all) {
        for (const c of listCheckpoints(root).checkpoints) checkpoints.push(toModelSummary(c, placed.get(c.path)));
      }
      return { roots: all, checkpoints };
    },
    async 'models.sample'(input, { signal }) {
      const worker = policyWorker(ctx.workers);
      // The Models page holds what it sampled (one holder for the page); onnx evaluations share the same session.
      const info = await worker.call('policy.load', { checkpoint: input.path, settings: { provider: input.provider }, holder: 'models-page' }, { timeoutMs: 300_000 });
      placed.set(input.path, info);
      const r = await worker.call(
        'policy.generate',
        {
          checkpoint: input.path,
          prompt: input.prompt,
          options: { maxTokens: input.maxTokens, temperature: input.temperature, topP: input.topP, topK: input.topK, seed: input.seed },
          withText: true,
        },
        { signal },
      );
      if (!r.tokenTexts) throw new LabError('UNAVAILABLE', `${input.path} has no tokenizer to show token texts`);
      return {
        promptTokens: r.promptIds.length,
        tokens: r.tokens.map((t, i) => ({ id: t.id, text: r.tokenTexts![i] ?? '', logprob: t.logprob, experts: t.routing?.experts ?? null, gates: t.routing?.gates ?? null })),
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
