/**
 * Two runs paired task by task, as `t1lab compare A B` prints them (the same `stats.compare` service):
 * resolved rates with intervals, B − A (C − A… named by the page's letter) with its paired bootstrap interval, the design's p (McNemar exact, or the
 * sign-flip test on task shares when tasks have several attempts), the reward
 * difference, and B − A per category as a forest plot.
 */
import type { CompareResult } from '../../../../electron/domain/stats';
import { KeyValue } from '../KeyValue';
import { ForestPlot } from '../runs/ForestPlot';
import { changeText, isChange, type TaskDiff } from '../runs/compare/task-diff';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const pp = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} pp`;
const ci = (c: readonly [number, number], f: (x: number) => string) => `[${f(c[0])}, ${f(c[1])}]`;
const pValue = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toFixed(3));

/**
 * `letter`: what the page calls run B (C, D… when several runs are compared with A); `changes`: the pair's
 * tasks, where a moved reward is a change as much as a moved resolved rate.
 */
export function PairedComparison({
  r,
  letter = 'B',
  changes,
}: {
  r: CompareResult;
  letter?: string;
  changes?: readonly TaskDiff[];
}) {
  const vs = `${letter} − A`;
  const changed = changes
    ? changes.filter(isChange).map((c) => `${c.taskId} ${changeText(c, 'A', letter)}`)
    : r.changed.map((c) => `${c.task} ${pct(c.a)}→${pct(c.b)}`);
  const test = r.mcnemar
    ? `McNemar exact p = ${pValue(r.mcnemar.p)} (A only ${r.mcnemar.b}, B only ${r.mcnemar.c})`
    : r.taskShares
      ? `sign-flip permutation p = ${pValue(r.taskShares.test.p)} (paired by task: ${r.taskShares.test.nonZero} of ${r.taskShares.tasks} task shares changed)`
      : `two-proportion z-test p = ${pValue(r.test.p)}`;
  return (
    <div className="paired-comparison" data-testid="comparison" data-a={r.a.run} data-b={r.b.run}>
      {r.warnings.map((w) => (
        <p key={w} className="warn" role="status">
          {w}
        </p>
      ))}
      <KeyValue
        rows={[
          [`A · ${r.a.run}`, `${pct(r.a.resolvedRate)} ${ci(r.a.ci95, pct)} · reward ${r.a.meanReward.toFixed(2)}`],
          [
            `${letter} · ${r.b.run}`,
            `${pct(r.b.resolvedRate)} ${ci(r.b.ci95, pct)} · reward ${r.b.meanReward.toFixed(2)}`,
          ],
          [vs, `${pp(r.diff)} ${ci(r.diffCi95, pp)} over ${r.tasks} ${r.paired ? 'paired' : 'unpaired'} tasks`],
          ['test', test],
          [
            `reward ${vs}`,
            `${r.reward.diff >= 0 ? '+' : ''}${r.reward.diff.toFixed(2)} [${r.reward.ci95[0].toFixed(2)}, ${r.reward.ci95[1].toFixed(2)}]`,
          ],
          ['changed tasks', changed.length ? changed.join(', ') : 'none'],
        ]}
      />
      {Object.keys(r.byCategory).length > 0 && (
        <ForestPlot
          title={`${vs} by category (points, 95% paired bootstrap)`}
          rows={Object.entries(r.byCategory).map(([label, c]) => ({
            label,
            diff: c.diff,
            ci: c.diffCi95,
            note: `${c.tasks} tasks, p = ${pValue(c.test.p)}`,
          }))}
        />
      )}
      <p className="muted">{r.method}</p>
    </div>
  );
}
