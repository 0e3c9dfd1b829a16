import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, type RefObject } from 'react';
import type { SandboxLimitsData } from '../../../electron/domain/terminal';
import { KeyValue } from '../components/KeyValue';
import { useTerminal } from '../stores/terminal';
import { LIMIT_LABELS } from '../lab/errors';
import { TERMINAL_FONT_FAMILY, TERMINAL_FONT_SIZE, TERMINAL_LINE_HEIGHT } from '../components/common/terminal-style';

const LIMIT_ROWS: [keyof SandboxLimitsData, string, (v: number) => string][] = [
  ['memoryMb', 'memory', (v) => `${v} MiB`],
  ['processes', 'processes', (v) => String(v)],
  ['cpuSeconds', 'CPU time', (v) => `${v} s per process`],
  ['fileSizeMb', 'file size', (v) => `${v} MiB`],
  ['openFiles', 'open files', (v) => String(v)],
  ['workspaceMb', 'workspace', (v) => `${v} MiB`],
  ['tmpMb', '/tmp', (v) => `${v} MiB`],
  ['wallSeconds', 'deadline', (v) => (v === 0 ? 'none' : `${v} s`)],
];

/** Terminal cell size in CSS pixels: xterm's own measurement when available, else a measured glyph. */
function cellSize(host: HTMLElement): { width: number; height: number } {
  const probe = document.createElement('span');
  probe.style.cssText = `position:absolute;visibility:hidden;font-family:${TERMINAL_FONT_FAMILY};font-size:${TERMINAL_FONT_SIZE}px;line-height:${TERMINAL_LINE_HEIGHT};white-space:pre`;
  probe.textContent = 'W'.repeat(50);
  host.appendChild(probe);
  const rect = probe.getBoundingClientRect();
  probe.remove();
  return { width: rect.width / 50 || 8, height: rect.height || 17 };
}

function fit(box: HTMLElement): { cols: number; rows: number } {
  const cell = cellSize(box);
  const cols = Math.max(20, Math.min(400, Math.floor((box.clientWidth - 16) / cell.width)));
  const rows = Math.max(5, Math.min(200, Math.floor((box.clientHeight - 8) / cell.height)));
  return { cols, rows };
}

export function ShellPage() {
  const { defaults, info, opening, error, element, loadDefaults, open, resize, dismissError } = useTerminal();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    void loadDefaults();
  }, [loadDefaults]);
  useFittedTerminal(box, element, resize);
  const onOpen = () => {
    const size = box.current ? fit(box.current) : { cols: 120, rows: 32 };
    void open(size);
  };

  return (
    <section className="shell-page" data-testid="page-shell">
      <ShellForm onOpen={onOpen} opening={opening} />
      {defaults && !defaults.sandbox.ok && (
        <div className="error" role="alert">
          The sandbox does not work on this machine: {defaults.sandbox.hint}
        </div>
      )}
      {error && (
        <div className="error dismissable" role="alert" data-testid="shell-error" data-field={error.field ?? ''}>
          <span>{error.message}</span>
          <button type="button" className="dismiss" aria-label="Dismiss" onClick={dismissError}>
            ×
          </button>
        </div>
      )}
      <div className="shell-body">
        <div className="terminal-box" ref={box}>
          {!info && (
            <p className="muted terminal-empty">
              No shell open. Commands run in a bubblewrap sandbox: the workspace appears at /app, your home and the
              lab's data stay hidden.
            </p>
          )}
        </div>
        <SandboxPanel />
      </div>
    </section>
  );
}

/** Attaches the store's xterm element to the box and keeps its size fitted to it. */
function useFittedTerminal(
  box: RefObject<HTMLDivElement | null>,
  element: HTMLElement | null,
  resize: (cols: number, rows: number) => void,
): void {
  useEffect(() => {
    const host = box.current;
    if (!host || !element) return;
    host.appendChild(element);
    const observer = new ResizeObserver(() => {
      const size = fit(host);
      resize(size.cols, size.rows);
    });
    observer.observe(host);
    return () => {
      observer.disconnect();
      element.remove();
    };
  }, [element, resize]);
}

/** The shell's settings (workspace or a task's, network, memory, deadline, recording), Open and Close. */
function ShellForm({ onOpen, opening }: { onOpen(): void; opening: boolean }) {
  const { defaults, form, info, error, setForm, close } = useTerminal();
  const invalid = (field: string) => (error?.field === field ? 'invalid' : undefined);
  return (
    <form
      className="toolbar shell-form"
      onSubmit={(e) => {
        e.preventDefault();
        onOpen();
      }}
    >
      <label>
        workspace{' '}
        <input
          aria-label="workspace"
          className={invalid('workspace')}
          aria-invalid={error?.field === 'workspace'}
          placeholder="empty: a fresh temporary folder (else a full path)"
          value={form.workspace}
          onChange={(e) => setForm({ workspace: e.target.value })}
          size={36}
        />
      </label>
      {form.task && !form.workspace && (
        <span className="badge" data-testid="shell-task">
          {`task ${form.task.id}`}{' '}
          <button
            type="button"
            className="dismiss"
            aria-label="Do not start from the task"
            onClick={() => setForm({ task: null })}
          >
            ×
          </button>
        </span>
      )}
      <label>
        <input
          type="checkbox"
          aria-label="network"
          checked={form.net}
          onChange={(e) => setForm({ net: e.target.checked })}
        />{' '}
        network
      </label>
      <label>
        memory MiB{' '}
        <input
          aria-label="memory"
          className={invalid('limits.memoryMb')}
          aria-invalid={error?.field === 'limits.memoryMb'}
          inputMode="numeric"
          placeholder={String(defaults?.limits.memoryMb ?? '')}
          value={form.memoryMb}
          onChange={(e) => setForm({ memoryMb: e.target.value })}
          size={6}
        />
      </label>
      <label>
        deadline s{' '}
        <input
          aria-label="deadline"
          className={invalid('limits.wallSeconds')}
          aria-invalid={error?.field === 'limits.wallSeconds'}
          inputMode="numeric"
          placeholder="none"
          value={form.wallSeconds}
          onChange={(e) => setForm({ wallSeconds: e.target.value })}
          size={6}
        />
      </label>
      <label>
        <input
          type="checkbox"
          aria-label="record"
          checked={form.record}
          onChange={(e) => setForm({ record: e.target.checked })}
        />{' '}
        record
      </label>
      <button type="submit" disabled={opening || defaults?.sandbox.ok === false}>
        {opening ? 'Opening…' : info ? 'Open a new shell' : 'Open shell'}
      </button>
      {info && (
        <button type="button" onClick={() => void close()}>
          Close
        </button>
      )}
    </form>
  );
}

/** What the sandbox is (state, network, workspace, size, recording), its limits and how they are enforced, and the limits that fired. */
function SandboxPanel() {
  const { defaults, form, info, limitEvents, lost } = useTerminal();
  const limits = info?.limits ?? defaults?.limits;
  const running = info?.state === 'running';
  return (
    <aside className="sandbox-panel" data-testid="sandbox-panel" aria-label="Sandbox">
      <h2>Sandbox</h2>
      <KeyValue
        rows={[
          [
            'state',
            info ? (
              running ? (
                <span className="ok">running</span>
              ) : lost ? (
                <span className="bad">disconnected: the shell ended with the connection to the lab host</span>
              ) : (
                <span className="warn">{`exited (code ${info.exit?.exitCode ?? '—'}${info.exit?.limit ? `, stopped by the ${LIMIT_LABELS[info.exit.limit]}` : ''})`}</span>
              )
            ) : (
              'not open'
            ),
          ],
          [
            'network',
            (info?.net ?? form.net) ? (
              <span className="warn">on: host network shared</span>
            ) : (
              <span className="ok">off: no network, no host loopback</span>
            ),
          ],
          [
            'workspace',
            info
              ? `${info.temporary ? 'temporary ' : ''}${info.workspace} → ${info.workdir}`
              : form.workspace ||
                (form.task ? `a copy of task ${form.task.id}'s environment` : 'a fresh temporary folder'),
          ],
          ['size', info ? `${info.cols}×${info.rows}` : '—'],
          ...(info?.recordingPath ? [['recording', info.recordingPath] as [string, string]] : []),
        ]}
      />
      <h2>Limits</h2>
      {limits ? (
        <KeyValue rows={LIMIT_ROWS.map(([key, label, show]) => [label, show(limits[key])])} />
      ) : (
        <p className="muted">Asking the host…</p>
      )}
      {defaults?.enforcement && (
        <p className="muted small" title={defaults.enforcement.cgroupReason}>
          {defaults.enforcement.cgroup === 'none'
            ? 'Enforced with rlimits and a host-side monitor (no cgroups here).'
            : `Memory and processes capped by a ${defaults.enforcement.cgroup} group.`}
        </p>
      )}
      {limitEvents.length > 0 && (
        <>
          <h2>Limits that fired</h2>
          <ul className="limit-events" data-testid="limit-events">
            {limitEvents.map((e) => (
              <li key={e.at + e.limit}>
                <strong>{LIMIT_LABELS[e.limit]}</strong>: {e.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </aside>
  );
}
