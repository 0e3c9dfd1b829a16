/**
 * The Shell page's state: one sandboxed terminal at a time. The xterm.js instance lives here, not in the
 * page, so leaving the page and coming back keeps the screen and nothing that arrived meanwhile is lost.
 * Output is acknowledged after xterm has rendered it: the host pauses a flooding shell until we catch up.
 */
import { Terminal } from '@xterm/xterm';
import { create } from 'zustand';
import type { LimitNameData, SandboxLimitsData, TerminalDefaults, TerminalInfo } from '../../../electron/domain/terminal';
import { getLabApi } from '../lab/api';

/** Acknowledge rendered output in steps of this many chars (the host's low watermark is 5000). */
const ACK_CHUNK_CHARS = 5_000;

export interface OpenForm {
  workspace: string;
  net: boolean;
  memoryMb: string;
  wallSeconds: string;
  record: boolean;
}

interface TerminalState {
  defaults: TerminalDefaults | null;
  form: OpenForm;
  info: TerminalInfo | null;
  /** Limits that fired, newest last. */
  limitEvents: { limit: LimitNameData; message: string; at: string }[];
  opening: boolean;
  error: string | null;
  xterm: Terminal | null;
  /** The element xterm renders into; the page attaches it to its layout. */
  element: HTMLDivElement | null;
  loadDefaults(): Promise<void>;
  setForm(patch: Partial<OpenForm>): void;
  open(size: { cols: number; rows: number }): Promise<void>;
  resize(cols: number, rows: number): void;
  close(): Promise<void>;
}

let unsubscribers: (() => void)[] = [];

function limitsFromForm(form: OpenForm): Partial<SandboxLimitsData> {
  const limits: Partial<SandboxLimitsData> = {};
  if (form.memoryMb.trim()) limits.memoryMb = Number(form.memoryMb);
  if (form.wallSeconds.trim()) limits.wallSeconds = Number(form.wallSeconds);
  return limits;
}

export const useTerminal = create<TerminalState>((set, get) => ({
  defaults: null,
  form: { workspace: '', net: false, memoryMb: '', wallSeconds: '', record: false },
  info: null,
  limitEvents: [],
  opening: false,
  error: null,
  xterm: null,
  element: null,

  async loadDefaults() {
    try {
      set({ defaults: await getLabApi().methods['terminal.defaults']({}) });
    } catch (error) {
      set({ error: (error as Error).message });
    }
  },

  setForm(patch) {
    set({ form: { ...get().form, ...patch } });
  },

  async open(size) {
    if (get().opening) return;
    await get().close();
    set({ opening: true, error: null, limitEvents: [] });
    const lab = getLabApi();
    const { form } = get();
    let info: TerminalInfo;
    try {
      info = await lab.methods['terminal.open']({
        workspace: form.workspace.trim() || undefined,
        net: form.net,
        limits: limitsFromForm(form),
        cols: size.cols,
        rows: size.rows,
        record: form.record,
      });
    } catch (error) {
      set({ opening: false, error: (error as Error).message });
      return;
    }
    const xterm = new Terminal({ cols: info.cols, rows: info.rows, fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace', fontSize: 13, scrollback: 5000, convertEol: false });
    const element = document.createElement('div');
    element.className = 'xterm-host';
    element.dataset.testid = 'terminal-screen';
    xterm.open(element);
    let rendered = 0;
    unsubscribers = [
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
        if (id === info.id) set({ limitEvents: [...get().limitEvents, { limit, message, at: new Date().toISOString() }] });
      }),
    ];
    const input = xterm.onData((data) => {
      if (get().info?.state === 'running') void lab.methods['terminal.input']({ id: info.id, data }).catch(() => {});
    });
    unsubscribers.push(() => input.dispose());
    set({ info, xterm, element, opening: false });
    xterm.focus();
  },

  resize(cols, rows) {
    const { info, xterm } = get();
    if (!info || !xterm || (xterm.cols === cols && xterm.rows === rows)) return;
    xterm.resize(cols, rows);
    set({ info: { ...info, cols, rows } });
    if (info.state === 'running') void getLabApi().methods['terminal.resize']({ id: info.id, cols, rows }).catch(() => {});
  },

  async close() {
    const { info, xterm } = get();
    for (const u of unsubscribers.splice(0)) u();
    xterm?.dispose();
    set({ info: null, xterm: null, element: null });
    if (info) await getLabApi().methods['terminal.close']({ id: info.id }).catch(() => {});
  },
}));
