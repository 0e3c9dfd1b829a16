/**
 * The runs table's filter: words that must all match. `tag:NAME` needs the tag, `state:running` the state,
 * `stage:sft` the training stage; any other word is looked for in the name, id, policy, suite and tags.
 */
import type { RunListing } from '../../../../electron/domain/runs';

export function matchesRunFilter(run: RunListing, filter: string, state: string): boolean {
  for (const word of filter.toLowerCase().split(/\s+/).filter(Boolean)) {
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
