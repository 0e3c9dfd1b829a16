/** The preload's side of Electron IPC (ipcRenderer injected). Never exposed raw to the page. */
import { Emitter, type ClientTransport } from '../common/transport';
import { LAB_CHANNEL } from './main-transport';

export interface IpcRendererLike {
  send(channel: string, frame: string): void;
  on(channel: string, listener: (event: unknown, frame: unknown) => void): void;
}

export function createElectronRendererTransport(ipcRenderer: IpcRendererLike): ClientTransport {
  const frames = new Emitter<[string]>();
  const closed = new Emitter<[string]>();
  ipcRenderer.on(LAB_CHANNEL, (_event, frame) => {
    if (typeof frame === 'string') frames.fire(frame);
  });
  return {
    send: (frame) => ipcRenderer.send(LAB_CHANNEL, frame),
    onFrame: (l) => frames.on(l),
    onClose: (l) => closed.on(l),
    close: () => closed.fire('closed by the page'),
  };
}
