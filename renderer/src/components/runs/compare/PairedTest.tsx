/**
 * The slot for the paired statistical test of two runs over their common tasks. The statistics issue
 * fills it in (it receives both runs' episodes, paired by task); until then it says what is missing.
 */
import type { TaskDiff } from './task-diff';

export function PairedTest({ diffs }: { diffs: TaskDiff[] }) {
  const common = diffs.filter((d) => d.a !== null && d.b !== null).length;
  return (
    <div className="paired-test" data-testid="paired-test">
      <p className="muted small">{`${common} task${common === 1 ? '' : 's'} in common. A paired test of the difference is not computed yet.`}</p>
    </div>
  );
}
