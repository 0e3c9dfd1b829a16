/**
 * The runs table's grouping: runs under a heading per stage (of the checkpoint evaluated), tag, training
 * run, suite, policy or state, each with its count and mean resolved rate. A run with several tags is in
 * each of its tags' groups; runs with no value for the key are in one group at the end.
 */
import type { RunListing } from '../../../../electron/domain/runs';

export const GROUP_KEYS = ['none', 'stage', 'tag', 'training', 'suite', 'policy', 'state'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

export const GROUP_LABELS: Record<GroupKey, string> = {
  none: 'no grouping',
  stage: 'stage',
  tag: 'tag',
  training: 'training run',
  suite: 'suite',
  policy: 'policy',
  state: 'state',
};

const NONE_LABEL: Record<GroupKey, string> = {
  none: '',
  stage: 'not a checkpoint',
  tag: 'untagged',
  training: 'not a checkpoint',
  suite: '—',
  policy: '—',
  state: '—',
};

export interface RunGroup {
  /** The value grouped on ('' for the runs without one). */
  key: string;
  label: string;
  runs: RunListing[];
  /** Mean of the runs' resolved rates (runs with none left out), or null. */
  meanResolved: number | null;
}

const last = (path: string) => path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;

function valuesOf(run: RunListing, by: GroupKey, state: string): string[] {
  switch (by) {
    case 'stage':
      return run.lineage ? [run.lineage.stage ?? '?'] : [];
    case 'tag':
      return run.tags;
    case 'training':
      return run.lineage ? [run.lineage.trainingRun] : [];
    case 'suite':
      return [last(run.suite)];
    case 'policy':
      return [run.lineage ? run.lineage.trainingRun : last(run.policy)];
    case 'state':
      return [state];
    default:
      return [];
  }
}

/** Groups in order of first appearance in `runs` (already sorted), the valueless group last. */
export function groupRuns(runs: readonly RunListing[], by: GroupKey, stateOf: (r: RunListing) => string): RunGroup[] {
  const groups = new Map<string, RunListing[]>();
  for (const run of runs) {
    const values = valuesOf(run, by, stateOf(run));
    for (const v of values.length ? values : ['']) {
      const list = groups.get(v) ?? [];
      list.push(run);
      groups.set(v, list);
    }
  }
  const keys = [...groups.keys()].filter((k) => k !== '');
  if (groups.has('')) keys.push('');
  return keys.map((key) => {
    const members = groups.get(key)!;
    const rates = members.map((r) => r.resolvedRate).filter((x): x is number => x !== null);
    return { key, label: key || NONE_LABEL[by], runs: members, meanResolved: rates.length ? rates.reduce((a, b) => a + b, 0) / rates.length : null };
  });
}
