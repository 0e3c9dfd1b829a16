/**
 * Which runs the Tasks page's pass rate and history are taken over: a policy kind (every policy but the
 * oracle by default), a model (the whole policy spec) and a suite, from the lab's runs.
 */
import type { TaskRunFilter } from '../../../../electron/domain/runs';
import { useTasks } from '../../stores/tasks';

const lastPart = (path: string) => path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;

function Choice({
  label,
  field,
  options,
  all,
  extra = [],
}: {
  label: string;
  field: keyof TaskRunFilter;
  options: string[];
  all: string;
  extra?: { value: string; label: string }[];
}) {
  const { runFilter, setRunFilter } = useTasks();
  const value = runFilter[field] ?? '';
  const set = (next: string) => void setRunFilter({ ...runFilter, [field]: next || undefined });
  return (
    <label className="filter">
      {label}{' '}
      <select value={value} onChange={(e) => set(e.target.value)} data-testid={`pass-${field}`} title={value || all}>
        <option value="">{all}</option>
        {extra.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
        {/* A value chosen before the runs were read stays selectable. */}
        {[...new Set([...options, ...(value && !extra.some((o) => o.value === value) ? [value] : [])])].map((o) => (
          <option key={o} value={o} title={o}>
            {field === 'policy' ? o : lastPart(o.replace(/^[a-z]+:/, ''))}
          </option>
        ))}
      </select>
    </label>
  );
}

export function PassRateFilter() {
  const facets = useTasks((s) => s.runFacets);
  return (
    <div className="toolbar filters pass-filter" data-testid="pass-filter">
      <span className="muted">pass rate and history over runs of</span>
      <Choice
        label="policy"
        field="policy"
        options={facets.policies
          .filter((p) => p !== 'oracle')
          .concat(facets.policies.includes('oracle') ? ['oracle'] : [])}
        all="every policy"
        extra={[{ value: '!oracle', label: 'every policy but the oracle' }]}
      />
      <Choice label="model" field="model" options={facets.models} all="every model" />
      <Choice label="suite" field="suite" options={facets.suites} all="every suite" />
    </div>
  );
}
