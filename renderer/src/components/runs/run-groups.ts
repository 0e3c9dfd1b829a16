/**
 * The runs table's grouping: runs under a heading per stage (of the checkpoint evaluated), tag, training
 * run, suite, policy, state, or their settings with the seeds pooled (runs that differ only in seed), each
 * with its count and, per metric column, the runs' mean and min..max band (seed-groups.ts). A run with
 * several tags is in each of its tags' groups; runs with no value for the key are in one group at the end.
 */
import type { RunListing } from '../../../../electron/domain/runs';
import { differingKeys, settingsKey, spreadOf, type Spread } from '../../../../electron/domain/seed-groups';

export const GROUP_KEYS = ['none', 'seeds', 'stage', 'tag', 'training', 'suite', 'policy', 'state'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];

export const GROUP_LABELS: Record<GroupKey, string> = {
  none: 'no grouping',
  seeds: 'settings (seeds pooled)',
  stage: 'stage',
  tag: 'tag',
  training: 'training run',
  suite: 'suite',
  policy: 'policy',
  state: 'state',
};

const NONE_LABEL: Record<GroupKey, string> = {
  none: '',
  seeds: '—',
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

/** A run's settings (`config.*` fields): what runs pooled over seeds share but for the seed. */
function settingsOf(run: RunListing): Record<string, unknown> {
  return Object.fromEntries(Object.entries(run.fields ?? {}).filter(([k]) => k.startsWith('config.')));
}

function valuesOf(run: RunListing, by: GroupKey, state: string): string[] {
  switch (by) {
    case 'seeds':
      return [settingsKey(settingsOf(run))];
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
  const label =
    by === 'seeds' ? seedGroupLabeller(keys.map((k) => groups.get(k)![0]!)) : (key: string) => key || NONE_LABEL[by];
  return keys.map((key) => {
    const members = groups.get(key)!;
    const rates = members.map((r) => r.resolvedRate).filter((x): x is number => x !== null);
    return {
      key,
      label: label(key, members[0]!),
      runs: members,
      meanResolved: rates.length ? rates.reduce((a, b) => a + b, 0) / rates.length : null,
    };
  });
}

/** Settings shown in a seeds group's label beside policy and suite (the rest are in its title). */
const MAX_LABEL_SETTINGS = 3;

/** A seeds group is named by its policy and suite and the settings in which the groups differ (seeds left out). */
function seedGroupLabeller(firsts: readonly RunListing[]): (key: string, first: RunListing) => string {
  const differing = differingKeys(firsts.map(settingsOf)).filter((k) => k !== 'config.policy' && k !== 'config.suite');
  return (_key, first) => {
    const shown = differing
      .slice(0, MAX_LABEL_SETTINGS)
      .map((k) => `${k.split('.').at(-1)}=${String(first.fields?.[k] ?? '—')}`);
    return [last(first.policy), last(first.suite), ...shown].join(' · ');
  };
}

/** The table's metric columns as a group pools them: key (as the column's data-key) and the run's value. */
export const POOLED_METRICS: readonly { key: string; value: (r: RunListing) => number | null }[] = [
  { key: 'resolved', value: (r) => r.resolvedRate },
  { key: 'reward', value: (r) => r.meanReward },
  { key: 'turns', value: (r) => r.meanTurns },
  { key: 'tokens', value: (r) => r.tokens },
  { key: 'duration', value: (r) => r.durationMs },
];

/** Per metric column (results, and the added fields as `f:KEY`), the group's mean and min..max; null where no run has a number. */
export function groupSpreads(runs: readonly RunListing[], extra: readonly string[]): Record<string, Spread | null> {
  const out: Record<string, Spread | null> = {};
  for (const m of POOLED_METRICS) out[m.key] = spreadOf(runs.map(m.value));
  for (const k of extra)
    out[`f:${k}`] = spreadOf(runs.map((r) => (typeof r.fields?.[k] === 'number' ? (r.fields[k] as number) : null)));
  return out;
}
