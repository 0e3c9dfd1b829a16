/** Two eval runs side by side: headline, difference by category (bars), per-task outcomes, and the paired test's slot. */
import type { RunComparison } from '../../../../electron/domain/training-view';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const signed = (x: number) => `${x > 0 ? '+' : ''}${(x * 100).toFixed(1)} pt`;
const BAR_PX = 120;

function cell(o: RunComparison['tasks'][number]['a']) {
  if (!o) return <td className="muted">not run</td>;
  return (
    <td className={o.resolved === 1 ? 'ok' : o.resolved === 0 ? 'muted' : 'warn'}>
      {o.episodes > 1 ? `${pct(o.resolved)} of ${o.episodes}` : o.resolved ? 'resolved' : 'no'}
      {o.reward !== null ? <span className="muted"> · reward {o.reward.toFixed(1)}</span> : null}
    </td>
  );
}

export function ComparisonView({ comparison: c }: { comparison: RunComparison }) {
  return (
    <section className="comparison" data-testid="comparison">
      <div className="comparison-head">
        {(['a', 'b'] as const).map((side) => (
          <div key={side} className="comparison-side" data-testid={`comparison-${side}`}>
            <div className="muted small">{side.toUpperCase()}</div>
            <div>{c[side].runId}</div>
            <div className="small muted" title={c[side].policy}>
              {c[side].policy.split('/').slice(-2).join('/')}
            </div>
            <div className="big">{pct(c[side].resolvedRate)}</div>
            <div className="small muted">of {c[side].tasks} tasks resolved</div>
          </div>
        ))}
        <div className="comparison-side">
          <div className="muted small">shared tasks</div>
          <div className="big">{c.shared.tasks}</div>
          <div className="small">
            A better on {c.shared.aBetter} · B better on {c.shared.bBetter} · same on {c.shared.same}
          </div>
          <div className="small muted" data-testid="paired-test">
            {c.pairedTest ? `${c.pairedTest.name}: p = ${c.pairedTest.pValue.toPrecision(2)}, B − A ${signed(c.pairedTest.diff)} [${signed(c.pairedTest.ci95[0])}, ${signed(c.pairedTest.ci95[1])}]` : 'paired test: comes with the statistics issue'}
          </div>
        </div>
      </div>
      <h4>Difference by category (B − A, resolved share)</h4>
      <table className="grid" data-testid="comparison-categories">
        <thead>
          <tr>
            <th>category</th>
            <th>tasks</th>
            <th>A</th>
            <th>B</th>
            <th>B − A</th>
          </tr>
        </thead>
        <tbody>
          {c.byCategory.map((g) => (
            <tr key={g.category} data-category={g.category} data-diff={g.diff}>
              <td>{g.category}</td>
              <td>{g.tasks}</td>
              <td>{pct(g.a)}</td>
              <td>{pct(g.b)}</td>
              <td>
                <span className="diff-bar">
                  <span className="diff-axis" />
                  <span className={g.diff >= 0 ? 'diff-pos' : 'diff-neg'} style={{ width: `${Math.abs(g.diff) * BAR_PX}px`, [g.diff >= 0 ? 'left' : 'right']: `${BAR_PX}px` }} />
                </span>{' '}
                {signed(g.diff)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h4>Per task</h4>
      <table className="grid" data-testid="comparison-tasks">
        <thead>
          <tr>
            <th>task</th>
            <th>category</th>
            <th>A</th>
            <th>B</th>
          </tr>
        </thead>
        <tbody>
          {c.tasks.map((t) => (
            <tr key={t.taskId} data-task={t.taskId}>
              <td>{t.taskId}</td>
              <td>{t.category}</td>
              {cell(t.a)}
              {cell(t.b)}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
