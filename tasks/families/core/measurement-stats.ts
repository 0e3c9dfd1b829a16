/** Scientific computing: summary statistics of a numeric data file, to a given precision. */
import type { TaskFamily } from '../types';
import { buildTask, phrase, shq } from '../kit/task';
import { CORE, py } from './kit';

export const measurementStats: TaskFamily = {
  name: 'measurement-stats',
  category: 'scientific-computing',
  summary: 'compute mean, sample standard deviation, min, max and median of a measurement column',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { seed, split }) {
    const quantity = rng.pick(['temperature', 'pressure', 'voltage', 'flux', 'ph', 'velocity']);
    const n = rng.int(11, 60);
    const base = rng.int(1, 500);
    const values = Array.from({ length: n }, () => Math.round((base + (rng.next() - 0.5) * base * 0.4) * 1000) / 1000);
    const mean = values.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
    const sorted = [...values].sort((a, b) => a - b);
    const median = n % 2 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
    const file = `${quantity}_${rng.word(3)}.dat`;
    const out = rng.pick(['stats.txt', 'summary.txt', 'result.txt']);
    const header = `# sample ${quantity}\n# time_s ${quantity}`;
    const data = values.map((v, i) => `${(i * 0.5).toFixed(1)} ${v}`).join('\n');
    const stats = { mean, sd, min: sorted[0]!, max: sorted[n - 1]!, median };
    const instruction = phrase(rng, split, [
      `\`/app/${file}\` holds measurements: comment lines start with \`#\`, data lines are \`time value\`. Write \`/app/${out}\` with five lines \`mean X\`, \`sd X\`, \`min X\`, \`max X\`, \`median X\` for the value column, each X with exactly 3 decimals. sd is the sample standard deviation (n - 1).`,
      `Compute statistics of the second column of /app/${file} (skip # comments): mean, sample standard deviation (divide by n-1), min, max, median. Save them in /app/${out} as lines "mean X", "sd X", "min X", "max X", "median X", in that order, X rounded to 3 decimal places.`,
      `For the ${quantity} readings in /app/${file} (second column; lines beginning with # are comments), write /app/${out}: lines \`mean\`, \`sd\` (n-1), \`min\`, \`max\`, \`median\`, each followed by a space and the value printed with 3 decimals.`,
    ]);
    const check = (k: keyof typeof stats) => ({
      name: `${k} is right`,
      run: py(
        `import sys; d = dict(l.split() for l in open(${JSON.stringify(out)}) if l.strip()); sys.exit(0 if abs(float(d[${JSON.stringify(k)}]) - ${stats[k]}) <= 0.0015 and len(d[${JSON.stringify(k)}].split(".")[1]) == 3 else 1)`,
      ),
    });
    return buildTask(CORE, {
      family: measurementStats,
      seed,
      split,
      difficulty: 'medium',
      instruction,
      tags: ['statistics', 'python', 'numeric'],
      files: { [file]: `${header}\n${data}\n` },
      solve: `python3 - <<'PY' > ${shq(out)}\nimport statistics as st\nxs = [float(l.split()[1]) for l in open(${JSON.stringify(file)}) if l.strip() and not l.startswith("#")]\nfor k, v in (("mean", st.mean(xs)), ("sd", st.stdev(xs)), ("min", min(xs)), ("max", max(xs)), ("median", st.median(xs))):\n    print(k, f"{v:.3f}")\nPY`,
      assertions: [
        {
          name: 'five lines in order',
          run: `test "$(cut -d' ' -f1 ${shq(out)} | tr '\\n' ,)" = mean,sd,min,max,median,`,
        },
        ...(['mean', 'sd', 'min', 'max', 'median'] as const).map(check),
      ],
    });
  },
};
