/**
 * The decode session settings the policy worker uses where its caller sets none, per batch size, chosen
 * from the measurement of `npm run bench -- model` (decode-settings.ts), not assumed. Measured on the
 * 2-core development machine while a training run held about 1.4 of its cores (2026-12-01, best step of
 * interleaved blocks, ms per step at 128 cached tokens for micro / 32 for nano, two runs each):
 *
 * | setting                      | micro b1  | micro b8  | micro b32   | micro b64   | nano b8   | nano b64  |
 * | threads=auto (onnxruntime's) | 1.90 2.08 | 5.03 4.84 | 14.0 17.3   | 24.5 20.7   | 1.46 1.57 | 6.88 8.25 |
 * | threads=1                    | 2.07 1.89 | 6.36 5.33 | 12.6 12.8   | 25.7 27.7   | 1.83 1.86 | 7.85 9.03 |
 * | threads=2 (= cores, explicit)| 2.56 2.08 | 9.86 8.66 | 28.2 24.9   | 53.1 42.2   | 1.47 1.98 | 8.30 16.9 |
 * | spinning off                 | 2.65 2.33 | 6.26 6.96 | 13.8 12.0   | 25.3 26.2   | 2.00 1.70 | 7.83 8.88 |
 * | optimization basic           | 2.09 1.88 | 5.07 5.82 | 12.9 19.8   | 26.8 28.1   | 1.93 1.70 | 6.77 8.49 |
 * | parallel execution           | 3.58 7.81 | 10.9 11.9 | 28.1 23.4   | 43.2 52.4   | 12.0 2.36 | 11.9 15.6 |
 *
 * onnxruntime's own choice of threads (0: one per core, which it places itself) is the best or within the
 * noise at every batch size; the same count set explicitly is up to 2x slower at batch 32-64 (a thread on
 * the core the other job holds stalls every parallel section), and parallel execution loses everywhere (the
 * sampling graph is a chain: nothing to overlap, only hand-offs). So every batch size gets the same setting
 * here; the table form stays so that a machine where the measurement says otherwise can say so per size.
 */
import { ONNXRUNTIME_DEFAULT_SETTING, type DecodeSetting } from './decode-settings';

/** Upper batch bounds with their setting, smallest first; the last applies above all bounds. */
const MEASURED: readonly { maxBatch: number; setting: DecodeSetting }[] = [
  { maxBatch: 1, setting: ONNXRUNTIME_DEFAULT_SETTING },
  { maxBatch: 8, setting: ONNXRUNTIME_DEFAULT_SETTING },
  { maxBatch: 32, setting: ONNXRUNTIME_DEFAULT_SETTING },
  { maxBatch: Infinity, setting: ONNXRUNTIME_DEFAULT_SETTING },
];

/**
 * The setting for a session that decodes up to `batch` rows at a time. `cores` is there for the rule a
 * many-core machine may need (the measurement above is from 2 cores); it does not change the choice today.
 */
export function decodeSettingFor(batch: number, _cores: number): DecodeSetting {
  return (MEASURED.find((m) => batch <= m.maxBatch) ?? MEASURED[MEASURED.length - 1]!).setting;
}
