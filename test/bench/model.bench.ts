/**
 * The MoE policy engine's throughput against this machine's GEMM roofline (issue 6), and the decode session
 * settings measured at batch 1, 8, 32 and 64 (issue 16): one table, each setting's step time and its ratio
 * to onnxruntime's defaults (what the lab used before), and the best setting per batch size.
 */
import { availableParallelism } from 'node:os';
import { PRESETS, parameterSpecs } from '../../native/model/config';
import { initParameters } from '../../native/model/init';
import { runModelBenchmark } from '../../native/model/bench';
import {
  bestPerBatch,
  ONNXRUNTIME_DEFAULT_SETTING,
  settingName,
  sweepDecodeSettings,
  type DecodeSettingRow,
} from '../../native/model/decode-settings';
import { decodeSettingFor } from '../../native/model/decode-defaults';
import { samplingExpertCompute } from '../../native/model/policy-model';
import { buildSamplingGraph } from '../../native/model/sampling-graph';
import type { Bench } from './reporter';

const BATCHES = [1, 8, 32, 64];

const bench: Bench = {
  name: 'model',
  about:
    'issue 6/16: MoE policy engine — decode, prefill, forward+backward vs the fp32 GEMM roofline, decode session settings (micro preset; nano with --quick)',
  async run(report, { quick }) {
    const preset = quick ? 'nano' : 'micro';
    const config = PRESETS[preset];
    const weights = initParameters(config, 1);
    report.note(`preset ${preset}, random weights (seed 1)`);
    const result = await runModelBenchmark(config, weights, {
      quick,
      onNote: (t) => report.note(t),
    });
    const roofline = result.figures[0]!;
    for (const f of result.figures.slice(1)) {
      if (f.baseline && f.ratio !== undefined) {
        report.figure({
          name: `${f.name} vs ${f.baseline.name}`,
          value: f.value,
          unit: f.unit,
          baseline: { name: f.baseline.name, value: f.baseline.value, unit: f.baseline.unit },
          ratio: f.ratio,
        });
      }
      if (f.rooflineFraction === undefined) {
        if (!f.baseline) report.figure({ name: f.name, value: f.value, unit: f.unit });
        continue;
      }
      report.figure({
        name: f.name,
        value: f.value,
        unit: f.unit,
        baseline: { name: 'fp32 GEMM roofline', value: roofline.value, unit: roofline.unit },
        ratio: f.rooflineFraction,
        goal: f.goal,
        met: f.met,
      });
    }

    // ---- decode session settings (issue 16) ----
    const cores = availableParallelism();
    const graph = buildSamplingGraph(config, weights, {
      expertCompute: samplingExpertCompute(config),
      cacheOutputs: 'new',
      samplingHead: true,
      fuseGateUp: true,
    });
    const past = quick ? 32 : 128;
    const rows = await sweepDecodeSettings(graph.bytes, config, {
      batches: BATCHES,
      past,
      rounds: quick ? 3 : 6,
      stepsPerBlock: 3,
      cores,
    });
    report.note(
      `decode step time by session setting (${preset}, ${graph.nodeCount} nodes, ${past} cached tokens, ${cores} cores; median over rounds of each interleaved block's best step; ratio: default's time / this one's):`,
    );
    report.note(`| setting | ${BATCHES.map((b) => `b${b} ms/step (ratio)`).join(' | ')} |`);
    const defaultName = settingName(ONNXRUNTIME_DEFAULT_SETTING);
    const byName = new Map<string, DecodeSettingRow[]>();
    for (const r of rows) byName.set(settingName(r.setting), [...(byName.get(settingName(r.setting)) ?? []), r]);
    const defaults = new Map(byName.get(defaultName)!.map((r) => [r.batch, r]));
    for (const [name, rs] of byName)
      report.note(
        `| ${name} | ${rs.map((r) => `${r.stepMs.toFixed(2)} (${(defaults.get(r.batch)!.stepMs / r.stepMs).toFixed(2)}x)`).join(' | ')} |`,
      );
    const best = bestPerBatch(rows);
    // Decoding at batch B reads every weight once per step for B tokens: bandwidth bounds the rate.
    const bandwidth = result.figures.find((f) => f.name.startsWith('memory bandwidth'))?.value ?? 0;
    const weightBytes = parameterSpecs(config).reduce((n, p) => n + 4 * p.shape.reduce((a, b) => a * b, 1), 0);
    for (const batch of BATCHES) {
      const b = best.get(batch)!;
      const d = defaults.get(batch)!;
      const policy = decodeSettingFor(batch, cores);
      const policyRow = rows.find((r) => r.batch === batch && settingName(r.setting) === settingName(policy));
      report.figure({
        name: `decode b${batch} best: ${settingName(b.setting)}`,
        value: b.tokensPerSecond,
        unit: 'tok/s',
        baseline: { name: 'onnxruntime defaults', value: d.tokensPerSecond },
        ratio: b.tokensPerSecond / d.tokensPerSecond,
      });
      if (policyRow)
        report.figure({
          name: `decode b${batch} policy worker's: ${settingName(policy)}`,
          value: policyRow.tokensPerSecond,
          unit: 'tok/s',
          baseline: { name: 'onnxruntime defaults', value: d.tokensPerSecond },
          ratio: policyRow.tokensPerSecond / d.tokensPerSecond,
        });
      if (batch === 8 && bandwidth > 0) {
        const ceiling = (batch * bandwidth * 1e9) / weightBytes;
        report.figure({
          name: 'decode b8 (best setting) vs bandwidth ceiling',
          value: b.tokensPerSecond,
          unit: 'tok/s',
          baseline: { name: `all weights read per step at ${bandwidth.toFixed(1)} GB/s`, value: ceiling },
          ratio: b.tokensPerSecond / ceiling,
          goal: '>= 30%',
          met: b.tokensPerSecond / ceiling >= 0.3,
        });
      }
    }
    const b1 = best.get(1)!;
    report.figure({
      name: 'B=1 latency per token (best setting)',
      value: b1.stepMs,
      unit: 'ms',
      baseline: { name: 'onnxruntime defaults', value: defaults.get(1)!.stepMs },
      ratio: b1.stepMs / defaults.get(1)!.stepMs,
    });
  },
};
export default bench;
