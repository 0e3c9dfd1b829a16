/**
 * Benchmarks print figures as ratios against a baseline measured in the same run (the machines are noisy,
 * absolute numbers are not comparable across runs). Each *.bench.ts file default-exports a `Bench`.
 */

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The baseline this figure is compared with, measured in the same run. */
  /** `unit` when the baseline is in other units than the figure (e.g. a throughput against GFLOP/s). */
  baseline?: { name: string; value: number; unit?: string };
  /** `value / baseline.value` (or the inverse where lower is better), with the goal if one is set. */
  ratio?: number;
  goal?: string;
  /** Whether the goal is met; undefined when there is no goal. */
  met?: boolean;
}

export interface BenchReporter {
  figure(figure: Figure): void;
  note(text: string): void;
}

export interface Bench {
  name: string;
  /** Which issue's targets it measures, for the README table. */
  about: string;
  /** `flags`: the command line's other `--` flags (e.g. `--recipe`), for benches with variants. */
  run(report: BenchReporter, options: { quick: boolean; flags: ReadonlySet<string> }): Promise<void>;
}

/** Median of a list of numbers; benchmarks report medians of repeated runs. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}
