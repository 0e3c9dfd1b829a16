/**
 * The skew of the tasks shown: each category's and difficulty's share as a bar, and the share of the
 * five largest categories (the paper's pool had 67.9% there). Plain elements: a few dozen bars need no chart library.
 */
import type { TaskSummary } from '../../../electron/domain/tasks';

function shares(values: string[]): { name: string; count: number; share: number }[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([name, count]) => ({ name, count, share: values.length ? count / values.length : 0 }));
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

function Bars({ title, rows, testId }: { title: string; rows: ReturnType<typeof shares>; testId: string }) {
  return (
    <div className="skew-bars" data-testid={testId}>
      <h4>{title}</h4>
      {rows.map((r) => (
        <div className="skew-row" key={r.name} data-name={r.name}>
          <span className="skew-name">{r.name}</span>
          <span className="skew-track">
            <span className="skew-fill" style={{ width: pct(r.share) }} />
          </span>
          <span className="skew-value">{`${r.count} · ${pct(r.share)}`}</span>
        </div>
      ))}
    </div>
  );
}

export function SkewChart({ tasks }: { tasks: TaskSummary[] }) {
  const categories = shares(tasks.map((t) => t.category));
  const difficulties = shares(tasks.map((t) => t.difficulty ?? 'unknown'));
  const top5 = categories.slice(0, 5).reduce((s, c) => s + c.share, 0);
  const families = new Set(tasks.map((t) => t.family).filter(Boolean)).size;
  return (
    // Closed by default: its summary line says the mix, and the task list keeps the height for its rows.
    <details className="skew-chart" data-testid="skew-chart">
      <summary>
        {`Mix of the ${tasks.length} shown: ${categories.length} categories, ${families} families, top 5 categories `}
        <strong data-testid="top5-share">{pct(top5)}</strong>
      </summary>
      <div className="skew-grid">
        <Bars title="Categories" rows={categories} testId="skew-categories" />
        <Bars title="Difficulties" rows={difficulties} testId="skew-difficulties" />
      </div>
    </details>
  );
}
