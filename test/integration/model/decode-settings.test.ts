/**
 * Decode session settings (issue 16): every candidate creates a working session whose logits equal the
 * defaults' (settings change speed, never results), the sweep measures every setting at every batch size,
 * and the policy worker's choice is a measured candidate.
 */
import { describe, expect, it } from 'vitest';
import { decodeSettingFor } from '../../../native/model/decode-defaults';
import {
  candidateSettings,
  decodeStepFeeds,
  ONNXRUNTIME_DEFAULT_SETTING,
  sessionOptionsOf,
  settingName,
  sweepDecodeSettings,
} from '../../../native/model/decode-settings';
import { buildSamplingGraph } from '../../../native/model/sampling-graph';
import { RuntimeSession } from '../../../native/onnx/runtime';
import { tinyConfig, tinyWeights } from '../../helpers/tiny-model';

const config = tinyConfig({ vocab_size: 32, max_position_embeddings: 64 });
const graph = buildSamplingGraph(config, tinyWeights(config, 5), { expertCompute: 'sparse' });

describe('decode session settings', () => {
  it('every candidate gives the default session logits (within fp32 tolerance)', async () => {
    const feeds = decodeStepFeeds(config, 3, 5);
    const logitsOf = async (options: ReturnType<typeof sessionOptionsOf>) => {
      const s = await RuntimeSession.create(graph.bytes, { providers: ['cpu'], ...options });
      try {
        return Array.from((await s.run(feeds, ['logits'])).logits!.data as Float32Array);
      } finally {
        await s.release();
      }
    };
    const reference = await logitsOf(sessionOptionsOf(ONNXRUNTIME_DEFAULT_SETTING));
    const settings = candidateSettings(2);
    expect(new Set(settings.map(settingName)).size).toBe(settings.length);
    expect(settings.some((s) => s.executionMode === 'parallel') && settings.some((s) => !s.spinning)).toBe(true);
    for (const setting of settings) {
      const logits = await logitsOf(sessionOptionsOf(setting));
      expect(logits).toHaveLength(reference.length);
      logits.forEach((v, i) => expect(Math.abs(v - reference[i]!), settingName(setting)).toBeLessThan(1e-4));
    }
  });

  it('the sweep measures every setting at every batch size', async () => {
    const settings = candidateSettings(2).slice(0, 3);
    const rows = await sweepDecodeSettings(graph.bytes, config, {
      batches: [1, 4],
      past: 4,
      rounds: 1,
      stepsPerBlock: 1,
      cores: 2,
      settings,
    });
    expect(rows.map((r) => `${settingName(r.setting)} b${r.batch}`)).toEqual(
      settings.flatMap((s) => [`${settingName(s)} b1`, `${settingName(s)} b4`]),
    );
    for (const r of rows) expect(r.stepMs > 0 && r.tokensPerSecond > 0).toBe(true);
  });

  it("the policy worker's setting for each batch size is one of the measured candidates", () => {
    const names = new Set(candidateSettings(2).map(settingName));
    for (const batch of [1, 8, 16, 32, 64, 256]) expect(names.has(settingName(decodeSettingFor(batch, 2)))).toBe(true);
  });
});
