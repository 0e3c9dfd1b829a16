/**
 * The host side of Electron IPC, with Electron's objects injected (only electron/main imports 'electron').
 * One channel carries text frames; every renderer (webContents) that sends on it becomes a connection,
 * and each frame carries its sender frame so the router can check it (VS Code's validated IPC).
 */
import { Emitter, type Disposable, type Peer, type ServerConnection } from '../common/transport';

export const LAB_CHANNEL = 'lab';

export interface WebContentsLike {
  readonly id: number;
  readonly mainFrame?: unknown;
  send(channel: string, frame: string): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): void;
}

export interface IpcMainEventLike {
  readonly sender: WebContentsLike;
  readonly senderFrame: { readonly url: string } | null;
}

export interface IpcMainLike {
  on(channel: string, listener: (event: IpcMainEventLike, frame: unknown) => void): void;
  removeListener(channel: string, listener: (event: IpcMainEventLike, frame: unknown) => void): void;
}

export function serveElectronIpc(
  ipcMain: IpcMainLike,
  onConnection: (connection: ServerConnection) => void,
): Disposable {
  const connections = new Map<number, { frames: Emitter<[string, Peer]>; closed: Emitter<[]> }>();

  const connectionFor = (contents: WebContentsLike) => {
    const existing = connections.get(contents.id);
    if (existing) return existing;
    const created = { frames: new Emitter<[string, Peer]>(), closed: new Emitter<[]>() };
    connections.set(contents.id, created);
    const close = () => {
      if (connections.get(contents.id) !== created) return;
      connections.delete(contents.id);
      created.closed.fire();
    };
    contents.once('destroyed', close);
    onConnection({
      id: `electron-${contents.id}`,
      send(frame) {
        if (!contents.isDestroyed()) contents.send(LAB_CHANNEL, frame);
      },
      onFrame: (l) => created.frames.on(l),
      onClose: (l) => created.closed.on(l),
      close,
    });
    return created;
  };

  const listener = (event: IpcMainEventLike, frame: unknown) => {
    const contents = event.sender;
    const peer: Peer = {
      kind: 'electron',
      webContentsId: contents.id,
      frameUrl: event.senderFrame?.url ?? '',
      isMainFrame: event.senderFrame !== null && event.senderFrame === contents.mainFrame,
    };
    // Non-string payloads are not frames; hand them on as such so the router answers MALFORMED.
    connectionFor(contents).frames.fire(typeof frame === 'string' ? frame : `\u0000non-string payload`, peer);
  };
  ipcMain.on(LAB_CHANNEL, listener);
  return { dispose: () => ipcMain.removeListener(LAB_CHANNEL, listener) };
}
