/**
 * The renderer's one way to reach the host. In Electron the preload has put `window.lab` there; in a
 * browser (web mode) we open a WebSocket to the host that served this page (its cookie carries the token).
 */
import { createClient } from '../../../electron/ipc/common/client';
import type { LabContract } from '../../../electron/ipc/common/contract';
import { labApiFromClient, labApiFromPreload, type LabApi, type PreloadLab } from '../../../electron/ipc/common/lab-api';
import { createWebSocketClientTransport } from '../../../electron/ipc/common/websocket-client';

declare global {
  interface Window {
    lab?: PreloadLab;
  }
}

export type ConnectionState = 'connecting' | 'open' | 'closed';

let api: LabApi | null = null;
const stateListeners = new Set<(state: ConnectionState, reason?: string) => void>();
let state: ConnectionState = 'connecting';

function setState(next: ConnectionState, reason?: string) {
  state = next;
  for (const l of stateListeners) l(next, reason);
}

export function getLabApi(): LabApi {
  if (api) return api;
  if (window.lab) {
    api = labApiFromPreload(window.lab);
    setState('open');
    return api;
  }
  const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ipc`);
  socket.addEventListener('open', () => setState('open'));
  const transport = createWebSocketClientTransport(socket);
  transport.onClose((reason) => setState('closed', reason));
  api = labApiFromClient(createClient<LabContract>(transport), 'web');
  return api;
}

export function onConnectionState(listener: (state: ConnectionState, reason?: string) => void): () => void {
  stateListeners.add(listener);
  listener(state);
  return () => stateListeners.delete(listener);
}
