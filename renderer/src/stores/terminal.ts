/**
 * The Shell page's state: one sandboxed terminal at a time. The xterm.js instance lives here, not in the
 * page, so leaving the page and coming back keeps the screen and nothing that arrived meanwhile is lost.
 * Output is acknowledged after xterm has rendered it: the host pauses a flooding shell until we catch up.
 */
import { Terminal } from '@xterm/xterm';
import { create, type StoreApi } from 'zustand';
import type {
  LimitNameData,
  SandboxLimitsData,
  TerminalDefaults,
  TerminalInfo,
} from '../../../electron/domain/terminal';
import type { LabApi } from '../../../electron/ipc/common/lab-api';
import { getLabApi, onConnectionState } from '../lab/api';
import { userError, type UserError } from '../lab/errors';
import { TERMINAL_STYLE } from '../components/common/terminal-style';

/** Acknowledge rendered output in steps of this many chars (the host's low watermark is 5000). */
const ACK_CHUNK_CHARS = 5_000;

export interface OpenForm {
  workspace: string;
  net: boolean;
  memoryMb: string;
  wallSeconds: string;
  record: boolean;
  /** Start from a task's environment (set by "Open a shell on this task"). */
  task: { source: string; id: string } | null;
}

interface TerminalState {
  defaults: TerminalDefaults | null;
  form: OpenForm;
  info: TerminalInfo | null;
  /** Limits that fired, newest last. */
  limitEvents: { limit: LimitNameData; message: string; at: string }[];
  opening: boolean;
  error: UserError | null;
  /** The connection to the host was lost while this shell ran: it ended with that connection. */
  lost: boolean;
  xterm: Terminal | null;
  /** The element xterm renders into; the page attaches it to its layout. */
  element: HTMLDivElement | null;
  loadDefaults(): Promise<void>;
  setForm(patch: Partial<OpenForm>): void;
  dismissError(): void;
  open(size: { cols: number; rows: number }): Promise<void>;
  resize(cols: number, rows: number): void;
  close(): Promise<void>;
}

let unsubscribers: (() => void)[] = [];

/** Form field -> the path of the value it sets in `terminal.open`'s input (how errors name it). */
const FORM_FIELDS: Record<keyof OpenForm, string> = {
  workspace: 'workspace',
  net: 'net',
  memoryMb: 'limits.memoryMb',
  wallSeconds: 'limits.wallSeconds',
  record: 'record',
  task: 'task',
};
const FIELD_LABELS: Record<string, string> = {
  workspace: 'The workspace',
  'limits.memoryMb': 'Memory (MiB)',
  'limits.wallSeconds': 'The deadline (seconds)',
  limits: 'A limit',
  cols: 'The width',
  rows: 'The height',
};

function limitsFromForm(form: OpenForm): Partial<SandboxLimitsData> {
  const limits: Partial<SandboxLimitsData> = {};
  if (form.memoryMb.trim()) limits.memoryMb = Number(form.memoryMb);
  if (form.wallSeconds.trim()) limits.wallSeconds = Number(form.wallSeconds);
  return limits;
}

function relativeWorkspace(workspace: string): UserError {
  return {
    message: `"${workspace}" is a relative path: give the full path of a folder on this machine, starting with /.`,
    field: 'workspace',
  };
}

/** The xterm.js screen of a shell just opened, rendering into an element of its own. */
function createScreen(info: TerminalInfo): { xterm: Terminal; element: HTMLDivElement } {
  const xterm = new Terminal({
    ...TERMINAL_STYLE,
    cols: info.cols,
    rows: info.rows,
    scrollback: 5000,
    convertEol: false,
  });
  const element = document.createElement('div');
  element.className = 'xterm-host';
  element.dataset.testid = 'terminal-screen';
  xterm.open(element);
  return { xterm, element };
}

/**
 * The shell's output written to the screen (acknowledged in chunks once rendered), its exit and limits into the
 * store, the keys typed sent while it runs. Returns what undoes each.
 */
function connectScreen(
  lab: LabApi,
  info: TerminalInfo,
  xterm: Terminal,
  set: StoreApi<TerminalState>['setState'],
  get: StoreApi<TerminalState>['getState'],
): (() => void)[] {
  let rendered = 0;
  const subscriptions = [
    lab.on('terminal.data', ({ id, data }) => {
      if (id !== info.id) return;
      xterm.write(data, () => {
        rendered += data.length;
        if (rendered >= ACK_CHUNK_CHARS) {
          const chars = rendered;
          rendered = 0;
          void lab.methods['terminal.ack']({ id, chars }).catch(() => {});
        }
      });
    }),
    lab.on('terminal.exit', ({ id, exitCode, limit }) => {
      const current = get().info;
      if (id !== info.id || !current) return;
      set({ info: { ...current, state: 'exited', exit: { exitCode, limit } } });
    }),
    lab.on('terminal.limit', ({ id, limit, message }) => {
      if (id === info.id)
        set({ limitEvents: [...get().limitEvents, { limit, message, at: new Date().toISOString() }] });
    }),
  ];
  const input = xterm.onData((data) => {
    if (get().info?.state === 'running' && !get().lost)
      void lab.methods['terminal.input']({ id: info.id, data }).catch(() => {});
  });
  subscriptions.push(() => input.dispose());
  return subscriptions;
}

export const useTerminal = create<TerminalState>((set, get) => ({
  defaults: null,
  form: { workspace: '', net: false, memoryMb: '', wallSeconds: '', record: false, task: null },
  info: null,
  limitEvents: [],
  opening: false,
  error: null,
  lost: false,
  xterm: null,
  element: null,

  async loadDefaults() {
    try {
      set({ defaults: await getLabApi().methods['terminal.defaults']({}) });
    } catch (error) {
      set({ error: userError(error) });
    }
  },

  setForm(patch) {
    const error = get().error;
    // An error about a field goes away when that field changes.
    const touched = error?.field && Object.keys(patch).some((k) => FORM_FIELDS[k as keyof OpenForm] === error.field);
    set({ form: { ...get().form, ...patch }, ...(touched ? { error: null } : {}) });
  },

  dismissError() {
    set({ error: null });
  },

  async open(size) {
    if (get().opening) return;
    const { form } = get();
    const workspace = form.workspace.trim();
    if (workspace && !workspace.startsWith('/')) {
      set({ error: relativeWorkspace(workspace) });
      return;
    }
    await get().close();
    set({ opening: true, error: null, limitEvents: [], lost: false });
    const lab = getLabApi();
    let info: TerminalInfo;
    try {
      info = await lab.methods['terminal.open']({
        workspace: workspace || undefined,
        net: form.net,
        limits: limitsFromForm(form),
        cols: size.cols,
        rows: size.rows,
        record: form.record,
        ...(form.task && !workspace ? { task: form.task } : {}),
      });
    } catch (error) {
      set({ opening: false, error: userError(error, FIELD_LABELS) });
      return;
    }
    const { xterm, element } = createScreen(info);
    unsubscribers = connectScreen(lab, info, xterm, set, get);
    set({ info, xterm, element, opening: false });
    xterm.focus();
  },

  resize(cols, rows) {
    const { info, xterm } = get();
    if (!info || !xterm || (xterm.cols === cols && xterm.rows === rows)) return;
    xterm.resize(cols, rows);
    set({ info: { ...info, cols, rows } });
    if (info.state === 'running')
      void getLabApi()
        .methods['terminal.resize']({ id: info.id, cols, rows })
        .catch(() => {});
  },

  async close() {
    const { info, xterm } = get();
    for (const u of unsubscribers.splice(0)) u();
    xterm?.dispose();
    set({ info: null, xterm: null, element: null });
    if (info)
      await getLabApi()
        .methods['terminal.close']({ id: info.id })
        .catch(() => {});
  },
}));

// A shell lives as long as the connection that opened it: when the connection drops, the shell is gone
// (the host closes it, or the host itself died). Say so, and stop taking keystrokes.
onConnectionState((state) => {
  const { info } = useTerminal.getState();
  if (state === 'closed' && info && info.state === 'running') {
    useTerminal.setState({ lost: true, info: { ...info, state: 'exited', exit: null } });
    const { xterm } = useTerminal.getState();
    if (xterm) xterm.options.disableStdin = true;
  }
});
