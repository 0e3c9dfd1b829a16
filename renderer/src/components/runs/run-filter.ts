/**
 * The runs table's filter: words that must all match. `tag:NAME` needs the tag, `state:running` the state,
 * `stage:sft` the training stage; `config.seed=2`, `summary.resolvedRate>0.5` (`=`, `>`, `<`) a field of the run
 * (any column of your choosing); any other word is looked for in the name, id, policy, suite and tags.
 */
import type { RunListing } from '../../../../electron/domain/runs';
import { meetsFieldCondition, parseFieldCondition } from '../../../../electron/domain/run-fields';

export function matchesRunFilter(run: RunListing, filter: string, state: string): boolean {
  for (const word of filter.toLowerCase().split(/\s+/).filter(Boolean)) {
    const condition = parseFieldCondition(word);
    if (condition) {
      if (!meetsFieldCondition(run.fields ?? {}, condition)) return false;
      continue;
    }
    const colon = word.indexOf(':');
    const key = colon > 0 ? word.slice(0, colon) : '';
    const value = colon > 0 ? word.slice(colon + 1) : word;
    if (key === 'tag') {
      if (!run.tags.some((t) => t.toLowerCase() === value)) return false;
    } else if (key === 'state') {
      if (state !== value) return false;
    } else if (key === 'stage') {
      if ((run.lineage?.stage ?? '').toLowerCase() !== value) return false;
    } else {
      const hay = [run.title, run.id, run.policy, run.suite, ...run.tags, run.notes].join('\n').toLowerCase();
      if (!hay.includes(word)) return false;
    }
  }
  return true;
}
