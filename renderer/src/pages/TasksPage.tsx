import { useEffect, useMemo } from 'react';
import { Markdown } from '../components/common/Markdown';
import { FailureMessage } from '../components/common/FailureMessage';
import { TaskFiles } from '../components/tasks/TaskFiles';
import { TaskHistory } from '../components/tasks/TaskHistory';
import { TaskSources } from '../components/tasks/TaskSources';
import { PassRateFilter } from '../components/tasks/PassRateFilter';
import { TaskActions } from '../components/tasks/TaskActions';
import { taskPassSummary } from '../components/tasks/task-pass-summary';
import { useSort } from '../components/common/sortable';
import { difficultyRank } from '../components/common/difficulty';
import type { TaskPassRate } from '../../../electron/domain/runs';
import { useNav } from '../stores/nav';
import { sortDifficulties } from '../components/common/difficulty';
import { onRowKey } from '../components/common/row-keys';
import type {
  AssertionResult,
  AuditReport,
  AuditVerdict,
  TaskDetail,
  TaskListing,
  TaskSummary,
} from '../../../electron/domain/tasks';
import { KeyValue } from '../components/KeyValue';
import { SkewChart } from '../components/SkewChart';
import { matches, NO_FAMILY, NOT_AUDITED, refKey, useTasks, type TaskFilters } from '../stores/tasks';

const VERDICTS: AuditVerdict[] = ['ok', 'broken-oracle', 'trivial', 'flaky', 'no-oracle', 'invalid', 'error'];

function uniq(values: string[]): string[] {
  return [...new Set(values)].sort();
}

/** A task's resolved share over the lab's evaluation runs, with the counts in the title. */
function PassRate({ rate }: { rate: TaskPassRate | undefined }) {
  if (!rate || rate.episodes === 0) return <span className="muted">—</span>;
  const share = rate.resolved / rate.episodes;
  return (
    <span
      className={share >= 0.5 ? 'ok' : share > 0 ? 'warn' : 'bad'}
      title={`${rate.resolved} of ${rate.episodes} episodes resolved, in ${rate.runs} run${rate.runs === 1 ? '' : 's'}`}
      data-testid="pass-rate"
    >
      {`${Math.round(share * 100)}% · ${rate.resolved}/${rate.episodes}`}
    </span>
  );
}

function VerdictBadge({ verdict }: { verdict: AuditVerdict | null }) {
  if (!verdict) return <span className="badge muted">{NOT_AUDITED}</span>;
  return <span className={`badge verdict-${verdict}`}>{verdict}</span>;
}

function FilterSelect({ label, name, options }: { label: string; name: keyof TaskFilters; options: string[] }) {
  const { filters, setFilter } = useTasks();
  return (
    <label className="filter">
      {label}
      <select aria-label={label} value={filters[name]} onChange={(e) => setFilter(name, e.target.value)}>
        <option value="">all</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

function AssertionTable({ title, rows }: { title: string; rows: AssertionResult[] | null }) {
  if (!rows) return null;
  return (
    <div className="assertion-results">
      <h4>{title}</h4>
      <table className="grid">
        <tbody>
          {rows.map((a, i) => (
            <tr key={`${a.name}-${i}`}>
              <td className={a.status === 'passed' ? 'ok' : a.status === 'error' ? 'bad' : 'warn'}>{a.status}</td>
              <td>{a.name}</td>
              <td className="message">{a.status === 'passed' ? null : <FailureMessage message={a.message} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function AuditResultView({ report }: { report: AuditReport }) {
  const r = report.result;
  const count = (c: { passed: number; total: number } | null) => (c ? `${c.passed}/${c.total} passed` : '—');
  return (
    <div className="audit-result" data-testid="audit-result">
      <KeyValue
        rows={[
          ['verdict', <VerdictBadge verdict={r.verdict} />],
          ['reason', r.reason],
          ['oracle', count(r.oracle)],
          ['no-op agent', count(r.noop)],
          ['flaky', r.flaky ? 'yes' : 'no'],
          ['audited', `${new Date(report.at).toLocaleString()} (${(report.durationMs / 1000).toFixed(1)} s)`],
        ]}
      />
      <AssertionTable title="Oracle run" rows={report.oracle} />
      <AssertionTable title="No-op run" rows={report.noop} />
    </div>
  );
}

/** The verifier's assertions, each with its kind, its name and what it checks (folded). */
function TaskAssertions({ assertions }: { assertions: TaskDetail['assertions'] }) {
  return (
    <ul className="assertions" data-testid="assertions">
      {assertions.map((a) => (
        <li key={`${a.kind}-${a.name}`}>
          <details>
            <summary>
              <span className="badge">{a.kind}</span> {a.name}
            </summary>
            <pre>{a.detail}</pre>
          </details>
        </li>
      ))}
    </ul>
  );
}

function Detail({ detail, report }: { detail: TaskDetail; report: AuditReport | null }) {
  const { auditError, passRates } = useTasks();
  return (
    <section className="task-detail" data-testid="task-detail">
      <h2>{detail.id}</h2>
      <KeyValue
        rows={[
          ['category', detail.category],
          ['difficulty', detail.difficulty ?? 'unknown'],
          ['family', detail.family ?? '—'],
          ['source', `${detail.source} (${detail.layout === 'tb1' ? 'Terminal-Bench 1 layout' : 'Harbor layout'})`],
          ['runtime', detail.runtime.kind === 'sandbox' ? 'sandbox' : `container — ${detail.runtime.reason}`],
          ['verifier', detail.verifiers.join(' + ')],
          ['timeouts', `agent ${detail.agentTimeoutSec} s, verifier ${detail.verifierTimeoutSec} s`],
          ['tags', detail.tags.join(', ') || '—'],
        ]}
      />
      <TaskActions detail={detail} />
      {auditError && (
        <div className="error" role="alert">
          {auditError}
        </div>
      )}
      {report && <AuditResultView report={report} />}
      {detail.warnings.length > 0 && (
        <ul className="warnings">
          {detail.warnings.map((w, i) => (
            <li key={i} className="warn">{`${w.file}${w.field ? `: ${w.field}` : ''}: ${w.reason}`}</li>
          ))}
        </ul>
      )}
      <h3>Instruction</h3>
      <Markdown text={detail.instruction} testId="instruction" />
      <h3>{`Verifier assertions (${detail.assertions.length})`}</h3>
      <TaskAssertions assertions={detail.assertions} />
      <h3>Oracle solution</h3>
      {detail.solution ? (
        <pre className="solution" data-testid="solution">
          {detail.solution}
        </pre>
      ) : (
        <p className="muted">This task has no oracle solution.</p>
      )}
      <h3>{`Files (${detail.files.length})`}</h3>
      <TaskFiles detail={detail} />
      <h3>History across runs</h3>
      <p data-testid="task-pass-summary">{taskPassSummary(passRates[detail.id])}</p>
      <TaskHistory taskId={detail.id} />
    </section>
  );
}

export function TasksPage() {
  const { listing, error, filters, selected, select, detail, detailError, reports, audit, load, passRates } =
    useTasks();
  const { params, link } = useNav();
  useEffect(() => {
    void load();
  }, [load]);
  // A deep link (#/tasks/SOURCE/ID) opens its task.
  useEffect(() => {
    const [source, id] = params;
    if (source && id && (!selected || selected.source !== source || selected.id !== id)) void select({ source, id });
    // Follows the address only (not the selection, which the address follows).
  }, [params]);
  const open = (t: TaskSummary) => {
    link('tasks', [t.source, t.id], { replace: true });
    void select({ source: t.source, id: t.id });
  };

  const tasks = listing?.tasks ?? [];
  const shown = useMemo(() => tasks.filter((t) => matches(t, filters, reports)), [tasks, filters, reports]);
  const verdictOf = (t: TaskSummary) => reports[refKey(t)]?.result.verdict ?? t.audit?.verdict ?? null;
  const rateOf = (t: TaskSummary) => {
    const r = passRates[t.id];
    return r && r.episodes > 0 ? r.resolved / r.episodes : null;
  };
  const { sorted, header } = useSort(
    shown,
    {
      task: (t) => t.id,
      category: (t) => t.category,
      difficulty: (t) => (t.difficulty ? difficultyRank(t.difficulty) : null),
      family: (t) => t.family ?? null,
      source: (t) => t.source,
      pass: rateOf,
      runs: (t) => passRates[t.id]?.runs ?? null,
      audit: (t) => verdictOf(t),
    },
    { key: 'source', dir: 1 },
  );
  const selectedReport = selected ? (reports[refKey(selected)] ?? null) : null;

  return (
    <section data-testid="page-tasks" className="tasks-page">
      <FilterBar tasks={tasks} shown={shown} />
      <PassRateFilter />
      {audit && (
        <div className="progress" data-testid="audit-progress">
          <progress max={audit.total} value={audit.done} />
          <span>{`${audit.done}/${audit.total}${audit.current ? ` — ${audit.current.id}: ${audit.current.step}` : ''}`}</span>
        </div>
      )}
      {error && (
        <div className="error" role="alert">
          {error}
        </div>
      )}
      <div className="tasks-split">
        <div className="tasks-list">
          <p className="muted" data-testid="task-count">{`${shown.length} of ${tasks.length} tasks`}</p>
          {shown.length > 0 && <SkewChart tasks={shown} />}
          {listing && <TaskSources listing={listing} />}
          <div className="task-table-scroll" data-testid="task-table-scroll">
            <table className="grid selectable task-table" data-testid="task-table">
              <thead>
                <tr>
                  {header('task', 'task')}
                  {header('category', 'category')}
                  {header('difficulty', 'difficulty')}
                  {header('family', 'family')}
                  {header('source', 'source')}
                  {header('pass', 'pass rate')}
                  {header('runs', 'runs')}
                  {header('audit', 'audit')}
                </tr>
              </thead>
              <tbody>
                {sorted.map((t) => (
                  <TaskRow
                    key={refKey(t)}
                    task={t}
                    selected={!!selected && refKey(selected) === refKey(t)}
                    passRate={passRates[t.id]}
                    verdict={verdictOf(t)}
                    onOpen={() => open(t)}
                  />
                ))}
              </tbody>
            </table>
          </div>
          {listing && listing.invalid.length > 0 && <InvalidTasks invalid={listing.invalid} />}
        </div>
        <div className="tasks-detail-pane">
          {!selected && <p className="muted">Select a task to read its instruction, assertions and oracle solution.</p>}
          {detailError && (
            <div className="error" role="alert">
              {detailError}
            </div>
          )}
          {detail && <Detail detail={detail} report={selectedReport} />}
        </div>
      </div>
    </section>
  );
}

/** The filters (category, difficulty, source, family, audit verdict, text), Reload, and an audit of the shown tasks. */
function FilterBar({ tasks, shown }: { tasks: TaskSummary[]; shown: TaskSummary[] }) {
  const { loading, filters, setFilter, audit, runAudit, load } = useTasks();
  return (
    <div className="toolbar filters">
      <FilterSelect label="Category" name="category" options={uniq(tasks.map((t) => t.category))} />
      <FilterSelect
        label="Difficulty"
        name="difficulty"
        options={sortDifficulties(uniq(tasks.map((t) => t.difficulty ?? 'unknown')))}
      />
      <FilterSelect label="Source" name="source" options={uniq(tasks.map((t) => t.source))} />
      <FilterSelect
        label="Family"
        name="family"
        options={uniq(
          tasks.filter((t) => !filters.source || t.source === filters.source).map((t) => t.family ?? NO_FAMILY),
        )}
      />
      <FilterSelect label="Audit verdict" name="verdict" options={[...VERDICTS, NOT_AUDITED]} />
      <input
        aria-label="Search"
        placeholder="search id, title, tags"
        value={filters.text}
        onChange={(e) => setFilter('text', e.target.value)}
      />
      <button onClick={() => void load(true)} disabled={loading}>
        {loading ? 'Loading…' : 'Reload'}
      </button>
      <button
        onClick={() => void runAudit(shown.map((t) => ({ source: t.source, id: t.id })))}
        disabled={!!audit || shown.length === 0}
      >
        {`Audit ${shown.length} shown`}
      </button>
    </div>
  );
}

/** A task: id, category, difficulty, family, source, its pass rate over the runs, and its audit verdict. */
function TaskRow({
  task: t,
  selected,
  passRate,
  verdict,
  onOpen,
}: {
  task: TaskSummary;
  selected: boolean;
  passRate: TaskPassRate | undefined;
  verdict: AuditVerdict | null;
  onOpen(): void;
}) {
  return (
    <tr
      className={selected ? 'selected' : ''}
      onClick={onOpen}
      onKeyDown={onRowKey(onOpen)}
      tabIndex={0}
      data-task={t.id}
    >
      <td title={`${t.id}: ${t.title}`} data-key="task">
        {t.id}
      </td>
      <td title={t.category}>{t.category}</td>
      <td>{t.difficulty ?? '—'}</td>
      <td title={t.family ?? undefined}>{t.family ?? '—'}</td>
      <td title={t.source} data-key="source">
        {t.source}
      </td>
      <td data-key="pass">
        <PassRate rate={passRate} />
      </td>
      <td data-key="runs">{passRate?.runs ?? 0}</td>
      <td>
        <VerdictBadge verdict={verdict} />
      </td>
    </tr>
  );
}

/** The tasks that could not be loaded, each with its problems. */
function InvalidTasks({ invalid }: { invalid: TaskListing['invalid'] }) {
  return (
    <details className="invalid-tasks">
      <summary className="warn">{`${invalid.length} task(s) could not be loaded`}</summary>
      <ul>
        {invalid.map((bad) => (
          <li key={`${bad.source}/${bad.id}`}>
            <strong>{`${bad.source}/${bad.id}`}</strong>
            <ul>
              {bad.problems.map((p, i) => (
                <li key={i}>{`${p.file}${p.field ? `: ${p.field}` : ''}: ${p.reason}`}</li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </details>
  );
}
