/**
 * What can be done with the task shown: audit it (or cancel the audit running), evaluate it (the Runs page's
 * form filled with this task), or open a sandboxed shell on its starting state (sandbox tasks only).
 */
import type { TaskDetail } from '../../../../electron/domain/tasks';
import { useEvalDraft } from '../../stores/eval-draft';
import { useNav } from '../../stores/nav';
import { useTasks } from '../../stores/tasks';
import { useTerminal } from '../../stores/terminal';

export function TaskActions({ detail }: { detail: TaskDetail }) {
  const { audit, runAudit, cancelAudit, listing } = useTasks();
  const evaluate = () => {
    const source = listing?.sources.find((s) => s.label === detail.source);
    useEvalDraft.getState().prefill(source?.path ?? detail.source, [detail.id]);
    useNav.getState().go('runs');
  };
  const openShell = () => {
    useTerminal.getState().setForm({ workspace: '', task: { source: detail.source, id: detail.id } });
    useNav.getState().go('shell');
  };
  const auditingThis = audit && audit.current?.id === detail.id;
  const sandboxed = detail.runtime.kind === 'sandbox';
  return (
    <div className="toolbar">
      <button onClick={() => void runAudit([{ source: detail.source, id: detail.id }])} disabled={!!audit}>
        {auditingThis ? 'Auditing…' : 'Run audit'}
      </button>
      {audit && (
        <button onClick={cancelAudit} className="secondary">
          Cancel
        </button>
      )}
      {audit?.current && <span className="muted">{`${audit.current.id}: ${audit.current.step}`}</span>}
      <button onClick={evaluate} data-testid="evaluate-task">
        Evaluate this task…
      </button>
      <button
        data-testid="shell-on-task"
        disabled={!sandboxed}
        title={
          sandboxed ? "A sandboxed shell on a copy of the task's starting state" : 'This task needs a container image'
        }
        onClick={openShell}
      >
        Open a shell on this task
      </button>
    </div>
  );
}
