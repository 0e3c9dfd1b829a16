/** The MoE policy engine's throughput against this machine's GEMM roofline (issue 6). */
import { PRESETS } from '../../native/model/config';
import { initParameters } from '../../native/model/init';
import { runModelBenchmark } from '../../native/model/bench';
import type { Bench } from './reporter';

const bench: Bench = {
  name: 'model',
  about: 'issue 6: MoE policy engine — decode, prefill, forward+backward vs the fp32 GEMM roofline (micro preset; nano with --quick)',
  async run(report, { quick }) {
    const preset = quick ? 'nano' : 'micro';
    const config = PRESETS[preset];
    report.note(`preset ${preset}, random weights (seed 1)`);
    const result = await runModelBenchmark(config, initParameters(config, 1), {
      quick,
      onNote: (t) => report.note(t),
    });
    const roofline = result.figures[0]!;
    for (const f of result.figures.slice(1)) {
      if (f.rooflineFraction === undefined) {
        report.figure({ name: f.name, value: f.value, unit: f.unit });
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
  },
};
export default bench;
