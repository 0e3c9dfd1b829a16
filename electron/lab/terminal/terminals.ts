/**
 * The UI's sandboxed terminals: each one a session in the pty host worker, owned by the connection that
 * opened it (only it sees the bytes or may type), closed when that connection goes away. Output is relayed
 * as it comes from the worker; the UI's acks travel back so the worker can pause a flooding shell.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import type { LimitNameData, SandboxLimitsData, TerminalDefaults, TerminalInfo } from '../../domain/terminal';
import { ptyHostContract } from '../../processes/contracts/pty-host';
import { DEFAULT_WORKDIR } from '../../../native/sandbox/bwrap-args';
import { defaultLimits } from '../../../native/sandbox/limits';
import type { HostContext } from '../host-context';
import { sandboxErrorToLab } from '../sandbox/errors';
import { makeOwnedTempDirSync } from '../../../native/util/temp-dirs';
import { TaskLibrary } from '../tasks/library';
import { prepareWorkspace } from '../tasks/workspace';

/** An interactive shell has no wall-clock deadline unless the user sets one. */
export function terminalDefaultLimits(overrides: Partial<SandboxLimitsData> = {}): SandboxLimitsData {
  try {
    return defaultLimits({ wallSeconds: 0, ...overrides });
  } catch (error) {
    throw sandboxErrorToLab(error);
  }
}

interface Terminal {
  info: TerminalInfo;
  connectionId: string;
  tempDir: string | null;
}

const tempDirs = new Set<string>();
process.once('exit', () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

export class TerminalService {
  private readonly terminals = new Map<string, Terminal>();
  private subscribed = false;
  private library: TaskLibrary | null = null;

  constructor(private readonly ctx: HostContext) {}

  private worker() {
    const w = this.ctx.workers.get('pty-host', ptyHostContract);
    if (!this.subscribed) {
      this.subscribed = true;
      w.on('pty.data', ({ id, data }) => {
        const t = this.terminals.get(id);
        if (t) this.ctx.emitTo(t.connectionId, 'terminal.data', { id, data });
      });
      w.on('pty.exit', ({ id, exitCode, limit }) => this.exited(id, exitCode, limit));
      w.on('pty.limit', ({ id, limit, message }) => {
        const t = this.terminals.get(id);
        if (t) this.ctx.emitTo(t.connectionId, 'terminal.limit', { id, limit, message });
      });
      w.onStatus((status) => {
        // The worker died: its sessions are gone with it.
        if (status.state === 'crashed' || status.state === 'failed')
          for (const id of this.terminals.keys()) this.exited(id, null, null);
      });
    }
    return w;
  }

  private exited(id: string, exitCode: number | null, limit: LimitNameData | null): void {
    const t = this.terminals.get(id);
    if (!t || t.info.state === 'exited') return;
    t.info = { ...t.info, state: 'exited', exit: { exitCode, limit } };
    this.ctx.emitTo(t.connectionId, 'terminal.exit', { id, exitCode, limit });
  }

  private owned(id: string, connectionId: string): Terminal {
    const t = this.terminals.get(id);
    if (!t || t.connectionId !== connectionId)
      throw new LabError('NOT_FOUND', `no terminal '${id}' on this connection`);
    return t;
  }

  async defaults(): Promise<TerminalDefaults> {
    const limits = terminalDefaultLimits();
    try {
      const e = await this.worker().call('pty.enforcement', {}, { timeoutMs: 30_000 });
      return {
        limits,
        sandbox: { backend: 'bubblewrap', version: e.version, ok: e.sandboxOk, hint: e.hint },
        enforcement: { cgroup: e.cgroup, cgroupReason: e.cgroupReason, limits: e.limits, network: e.network },
      };
    } catch (error) {
      return {
        limits,
        sandbox: { backend: 'bubblewrap', version: null, ok: false, hint: (error as Error).message },
        enforcement: null,
      };
    }
  }

  async open(
    input: {
      workspace?: string;
      net: boolean;
      limits: Partial<SandboxLimitsData>;
      cols: number;
      rows: number;
      record: boolean;
      task?: { source: string; id: string };
    },
    connectionId: string,
  ): Promise<TerminalInfo> {
    // A relative path would resolve against wherever the host was started (often the app's own checkout).
    if (input.workspace !== undefined && !isAbsolute(input.workspace)) {
      throw new LabError(
        'INVALID_PARAMS',
        `The workspace "${input.workspace}" is a relative path: give the full path of a folder on this machine, starting with /.`,
        { field: 'workspace' },
      );
    }
    if (input.workspace !== undefined && input.task)
      throw new LabError('INVALID_PARAMS', 'Give a workspace or a task to start from, not both.', {
        field: 'workspace',
      });
    const limits = terminalDefaultLimits(input.limits);
    const tempDir = input.workspace ? null : makeOwnedTempDirSync('terminal');
    if (tempDir) tempDirs.add(tempDir);
    if (input.task && tempDir) {
      // The task's starting state (environment files, setup.sh) in a copy: the task folder stays untouched.
      try {
        this.library ??= new TaskLibrary(this.ctx.dataDir);
        await prepareWorkspace(await this.library.find(input.task.source, input.task.id), tempDir);
      } catch (error) {
        this.removeTemp(tempDir);
        throw error;
      }
    }
    const workspace = input.workspace ?? (tempDir as string);
    let recordingPath: string | null = null;
    if (input.record) {
      const dir = join(this.ctx.dataDir, 'recordings');
      mkdirSync(dir, { recursive: true });
      recordingPath = join(dir, `terminal-${new Date().toISOString().replace(/[:.]/g, '-')}.cast`);
    }
    let opened: { id: string; pid: number };
    try {
      opened = await this.worker().call('pty.open', {
        workspace,
        net: input.net,
        limits,
        cols: input.cols,
        rows: input.rows,
        recordPath: recordingPath,
        stream: true,
      });
    } catch (error) {
      if (tempDir) this.removeTemp(tempDir);
      throw error;
    }
    const info: TerminalInfo = {
      id: opened.id,
      workspace,
      workdir: DEFAULT_WORKDIR,
      temporary: tempDir !== null,
      net: input.net,
      limits,
      cols: input.cols,
      rows: input.rows,
      recordingPath,
      openedAt: new Date().toISOString(),
      state: 'running',
      exit: null,
    };
    this.terminals.set(info.id, { info, connectionId, tempDir });
    this.ctx.onDisconnect(connectionId, () => void this.close(info.id, connectionId).catch(() => {}));
    return info;
  }

  async input(id: string, data: string, connectionId: string): Promise<null> {
    const t = this.owned(id, connectionId);
    if (t.info.state === 'running') await this.worker().call('pty.input', { id, data });
    return null;
  }

  async resize(id: string, cols: number, rows: number, connectionId: string): Promise<null> {
    const t = this.owned(id, connectionId);
    t.info = { ...t.info, cols, rows };
    if (t.info.state === 'running') await this.worker().call('pty.resize', { id, cols, rows });
    return null;
  }

  async ack(id: string, chars: number, connectionId: string): Promise<null> {
    const t = this.owned(id, connectionId);
    if (t.info.state === 'running') await this.worker().call('pty.ack', { id, chars });
    return null;
  }

  async close(id: string, connectionId: string): Promise<null> {
    const t = this.terminals.get(id);
    if (!t || t.connectionId !== connectionId) return null;
    this.terminals.delete(id);
    try {
      await this.worker().call('pty.close', { id }, { timeoutMs: 10_000 });
    } catch {
      // the worker is gone: so is the session
    } finally {
      if (t.tempDir) this.removeTemp(t.tempDir);
    }
    return null;
  }

  list(connectionId: string): TerminalInfo[] {
    return [...this.terminals.values()].filter((t) => t.connectionId === connectionId).map((t) => t.info);
  }

  private removeTemp(dir: string): void {
    tempDirs.delete(dir);
    rmSync(dir, { recursive: true, force: true });
  }
}
