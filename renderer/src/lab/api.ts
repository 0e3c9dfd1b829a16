/**
 * The renderer's one way to reach the host. In Electron the preload has put `window.lab` there; in a
 * browser (web mode) we open a WebSocket to the host that served this page (its cookie carries the token).
 *
 * Web mode survives the host going away: the connection state is published (the App shows a banner and
 * disables inputs), the socket is reopened with a growing delay, event subscriptions are carried over to
 * the new connection, and `onReconnect` listeners refresh what they show.
 */
import { createClient, type Client } from '../../../electron/ipc/common/client';
import type { LabContract, LabEvent, LabEventPayload } from '../../../electron/ipc/common/contract';
import { LabError } from '../../../electron/ipc/common/errors';
import { EventListeners } from '../../../electron/ipc/common/event-listeners';
import {
  labApiFromPreload,
  labMethodNames,
  type LabApi,
  type LabMethods,
  type PreloadLab,
} from '../../../electron/ipc/common/lab-api';
import { createWebSocketClientTransport } from '../../../electron/ipc/common/websocket-client';

declare global {
  interface Window {
    lab?: PreloadLab;
  }
}

export type ConnectionState = 'connecting' | 'open' | 'closed';

/** Reconnection delays: quick at first (a restarting host), then every few seconds. */
const RECONNECT_DELAYS_MS = [250, 500, 1_000, 2_000, 3_000];

let api: LabApi | null = null;
const stateListeners = new Set<(state: ConnectionState, reason?: string) => void>();
const reconnectListeners = new Set<() => void>();
let state: ConnectionState = 'connecting';
let lastReason: string | undefined;

function setState(next: ConnectionState, reason?: string) {
  state = next;
  lastReason = reason;
  for (const l of stateListeners) l(next, reason);
}

/**
 * The token printed by `t1lab serve` arrives in the URL; the host answered the page with a cookie holding
 * it, and this socket opened with that cookie. From here on the address bar (history, screenshots, a
 * pasted link) need not show it.
 */
function dropTokenFromAddress(): void {
  const url = new URL(location.href);
  if (!url.searchParams.has('token')) return;
  url.searchParams.delete('token');
  history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
}

/** The web-mode connection: one client at a time, replaced when the socket closes. */
function webApi(): LabApi {
  let client: Client<LabContract> | null = null;
  let attempt = 0;
  let everOpen = false;
  /** Each event's subscription on the current client, by event. */
  const offs = new Map<string, () => void>();
  const subscribe = (c: Client<LabContract>, event: string) => {
    offs.set(
      event,
      c.on(event as LabEvent, (payload) => listeners.emit(event, payload)),
    );
  };
  /** Every listener the pages hold, by event; re-subscribed on each new client. */
  const listeners = new EventListeners({
    onFirst: (event) => {
      if (client && !client.closed) subscribe(client, event);
    },
    onLast: (event) => {
      offs.get(event)?.();
      offs.delete(event);
    },
  });

  const connect = () => {
    setState('connecting', lastReason);
    const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ipc`);
    const transport = createWebSocketClientTransport(socket);
    const c = createClient<LabContract>(transport);
    client = c;
    offs.clear();
    for (const event of listeners.events()) subscribe(c, event);
    socket.addEventListener('open', () => {
      attempt = 0;
      dropTokenFromAddress();
      setState('open');
      if (everOpen) for (const l of reconnectListeners) l();
      everOpen = true;
    });
    transport.onClose((reason) => {
      if (client !== c) return;
      const delay = RECONNECT_DELAYS_MS[Math.min(attempt, RECONNECT_DELAYS_MS.length - 1)]!;
      attempt++;
      setState(
        'closed',
        everOpen ? `the lab host stopped answering (${reason})` : `cannot reach the lab host (${reason})`,
      );
      setTimeout(connect, delay);
    });
  };

  const methods = Object.fromEntries(
    labMethodNames.map((name) => [
      name,
      (input: unknown, options?: { signal?: AbortSignal; timeoutMs?: number }) => {
        if (!client || client.closed)
          return Promise.reject(new LabError('DISCONNECTED', 'not connected to the lab host'));
        return client.call(name, input as never, options);
      },
    ]),
  ) as LabMethods;

  connect();
  return {
    mode: 'web',
    methods,
    on<E extends LabEvent>(event: E, listener: (payload: LabEventPayload<E>) => void) {
      return listeners.add(event, listener as (payload: unknown) => void);
    },
  };
}

export function getLabApi(): LabApi {
  if (api) return api;
  if (window.lab) {
    api = labApiFromPreload(window.lab);
    setState('open');
    return api;
  }
  api = webApi();
  return api;
}

export function connectionState(): ConnectionState {
  return state;
}

export function onConnectionState(listener: (state: ConnectionState, reason?: string) => void): () => void {
  stateListeners.add(listener);
  listener(state, lastReason);
  return () => stateListeners.delete(listener);
}

/** Called each time the connection comes back after a loss: refresh what the page shows. */
export function onReconnect(listener: () => void): () => void {
  reconnectListeners.add(listener);
  return () => reconnectListeners.delete(listener);
}
