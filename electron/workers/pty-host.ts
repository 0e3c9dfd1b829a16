/**
 * Entry point of the pty host worker (contract: contracts/pty-host.ts). Owns every shell session of the
 * app; a session that floods is slowed by flow control, one that dies is reported and forgotten, and
 * neither touches the others.
 */
import { randomUUID } from 'node:crypto';
import { LabError } from '../ipc/common/errors';
import { sandboxErrorToLab } from '../lab/sandbox/errors';
import { createSandboxBackend, detectBubblewrap } from '../../native/sandbox/index';
import {
  AckFlowController,
  createShellSession,
  DataBatcher,
  isNamedKey,
  SessionBusyError,
  SessionClosedError,
  type NamedKey,
  type SandboxShellSession,
} from '../../native/pty/index';
import { ptyHostContract } from '../processes/contracts/pty-host';
import { serveWorker } from './rpc-server';

interface Entry {
  session: SandboxShellSession;
  streaming: boolean;
  batcher: DataBatcher;
  flow: AckFlowController;
  exited: boolean;
}

const backend = createSandboxBackend();
const sessions = new Map<string, Entry>();

function entry(id: string): Entry {
  const e = sessions.get(id);
  if (!e) throw new LabError('NOT_FOUND', `no pty session '${id}'`);
  return e;
}

function sessionError(error: unknown): never {
  if (error instanceof SessionBusyError) throw new LabError('CONFLICT', error.message);
  if (error instanceof SessionClosedError) throw new LabError('CONFLICT', error.message);
  throw sandboxErrorToLab(error);
}

const router = serveWorker('pty-host', ptyHostContract, {
  'pty.open': async (input) => {
    const id = randomUUID();
    let session: SandboxShellSession;
    try {
      session = await createShellSession({
        backend,
        id,
        spec: {
          workspace: input.workspace,
          workdir: input.workdir,
          net: input.net,
          limits: input.limits,
          env: input.env,
          mounts: input.mounts,
        },
        cols: input.cols,
        rows: input.rows,
        recordPath: input.recordPath ?? undefined,
      });
    } catch (error) {
      throw sandboxErrorToLab(error);
    }
    const e: Entry = {
      session,
      streaming: input.stream,
      exited: false,
      batcher: new DataBatcher((data) => {
        e.flow.sent(data.length);
        router.emit('pty.data', { id, data });
      }),
      flow: new AckFlowController(session),
    };
    sessions.set(id, e);
    session.onData((data) => {
      if (e.streaming) e.batcher.push(data);
    });
    session.onLimit((event) => router.emit('pty.limit', { id, limit: event.limit, message: event.message }));
    session.onExit((exit) => {
      e.exited = true;
      e.batcher.flush();
      router.emit('pty.exit', { id, exitCode: exit.exitCode, limit: (exit.limit as never) ?? null });
    });
    return { id, pid: session.pid };
  },
  'pty.input': ({ id, data }) => {
    entry(id).session.write(data);
    return null;
  },
  'pty.keys': ({ id, keys }) => {
    const e = entry(id);
    for (const k of keys)
      if (typeof k !== 'string' && !isNamedKey(k.key))
        throw new LabError('INVALID_PARAMS', `keys: unknown key '${k.key}'`);
    try {
      e.session.sendKeys(keys as (string | { key: NamedKey })[]);
    } catch (error) {
      sessionError(error);
    }
    return null;
  },
  'pty.run': async ({ id, command, timeoutMs, maxOutputChars }) => {
    try {
      return await entry(id).session.run(command, { timeoutMs, maxOutputChars });
    } catch (error) {
      sessionError(error);
    }
  },
  'pty.readNew': ({ id, maxOutputChars }) => entry(id).session.readNew({ maxOutputChars }),
  'pty.screen': async ({ id }) => {
    const s = entry(id).session;
    await s.flushed();
    return s.screen();
  },
  'pty.resize': ({ id, cols, rows }) => {
    entry(id).session.resize(cols, rows);
    return null;
  },
  'pty.ack': ({ id, chars }) => {
    sessions.get(id)?.flow.ack(chars);
    return null;
  },
  'pty.stream': ({ id, on }) => {
    const e = entry(id);
    e.streaming = on;
    if (!on) {
      e.batcher.flush();
      e.flow.reset();
    }
    return null;
  },
  'pty.close': async ({ id }) => {
    const e = sessions.get(id);
    if (!e) return null;
    sessions.delete(id);
    e.batcher.dispose();
    e.flow.reset();
    await e.session.close();
    return null;
  },
  'pty.list': () =>
    [...sessions.entries()].map(([id, e]) => ({
      id,
      pid: e.session.pid,
      streaming: e.streaming,
      busy: e.session.busy,
      exited: e.exited,
      unackedChars: e.flow.unackedChars,
      paused: e.flow.isPaused,
    })),
  'pty.enforcement': async () => {
    const [status, enforcement] = await Promise.all([detectBubblewrap(), backend.enforcement?.()]);
    if (!enforcement) throw new LabError('INTERNAL', 'the sandbox backend does not report its enforcement');
    return { ...enforcement, sandboxOk: status.ok, hint: status.hint, version: status.version };
  },
});

// Sessions die with the worker: kill their sandboxes when asked to stop.
const shutdown = () => {
  void Promise.allSettled([...sessions.values()].map((e) => e.session.close())).then(() => process.exit(0));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
