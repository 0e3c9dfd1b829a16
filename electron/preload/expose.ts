/** Builds `window.lab` (one function per contract method, plus `on` and `cancel`) with Electron's objects injected. */
import { createClient } from '../ipc/common/client';
import type { LabContract } from '../ipc/common/contract';
import { preloadLabFromClient } from '../ipc/common/lab-api';
import { createElectronRendererTransport, type IpcRendererLike } from '../ipc/electron/renderer-transport';

export interface ContextBridgeLike {
  exposeInMainWorld(key: string, api: unknown): void;
}

export function exposeLab(contextBridge: ContextBridgeLike, ipcRenderer: IpcRendererLike): void {
  const client = createClient<LabContract>(createElectronRendererTransport(ipcRenderer));
  contextBridge.exposeInMainWorld('lab', preloadLabFromClient(client));
}
