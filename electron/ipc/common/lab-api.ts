/**
 * `LabApi`: what the renderer sees, one function per contract method plus `on` for events. The preload
 * builds it over Electron IPC (window.lab); web mode builds it over a WebSocket. Same shape, same types
 * (Actual Budget's one API type for Electron and web).
 */
import type { Client } from './client';
import {
  labContract,
  type LabContract,
  type LabEvent,
  type LabEventPayload,
  type LabInput,
  type LabMethod,
  type LabOutput,
} from './contract';

export type LabMethods = {
  [M in LabMethod]: (
    input: LabInput<M>,
    options?: { signal?: AbortSignal; timeoutMs?: number },
  ) => Promise<LabOutput<M>>;
};

export interface LabApi {
  readonly mode: 'electron' | 'web';
  readonly methods: LabMethods;
  on<E extends LabEvent>(event: E, listener: (payload: LabEventPayload<E>) => void): () => void;
}

export const labMethodNames = Object.keys(labContract.methods) as LabMethod[];
export const labEventNames = Object.keys(labContract.events) as LabEvent[];

export function labApiFromClient(client: Client<LabContract>, mode: LabApi['mode']): LabApi {
  const methods = Object.fromEntries(
    labMethodNames.map((name) => [
      name,
      (input: unknown, options?: { signal?: AbortSignal; timeoutMs?: number }) =>
        client.call(name, input as never, options),
    ]),
  ) as LabMethods;
  return { mode, methods, on: (event, listener) => client.on(event, listener) };
}

/**
 * `window.lab` as the preload exposes it through contextBridge. AbortSignals cannot cross the bridge, so a
 * call takes an optional call id and `cancel(callId)` aborts it.
 */
export type PreloadLab = {
  readonly mode: 'electron';
  cancel(callId: string): void;
  on<E extends LabEvent>(event: E, listener: (payload: LabEventPayload<E>) => void): () => void;
} & { readonly [M in LabMethod]: (input: LabInput<M>, callId?: string, timeoutMs?: number) => Promise<LabOutput<M>> };

/** The preload's `window.lab`, built over a client. Exported for the preload and its tests. */
export function preloadLabFromClient(client: Client<LabContract>): PreloadLab {
  const inflight = new Map<string, AbortController>();
  const methods = Object.fromEntries(
    labMethodNames.map((name) => [
      name,
      async (input: unknown, callId?: string, timeoutMs?: number) => {
        const controller = new AbortController();
        if (callId) inflight.set(callId, controller);
        try {
          return await client.call(name, input as never, { signal: controller.signal, timeoutMs });
        } finally {
          if (callId) inflight.delete(callId);
        }
      },
    ]),
  );
  return {
    ...methods,
    mode: 'electron',
    cancel: (callId: string) => inflight.get(callId)?.abort(),
    on: (event, listener) => client.on(event, listener),
  } as PreloadLab;
}

/** The renderer's view of `window.lab`: the same `LabApi` as web mode. */
export function labApiFromPreload(lab: PreloadLab): LabApi {
  let next = 0;
  const methods = Object.fromEntries(
    labMethodNames.map((name) => [
      name,
      (input: unknown, options?: { signal?: AbortSignal; timeoutMs?: number }) => {
        const callId = `r${++next}`;
        options?.signal?.addEventListener('abort', () => lab.cancel(callId), { once: true });
        return (lab[name] as (input: unknown, callId?: string, timeoutMs?: number) => Promise<unknown>)(
          input,
          callId,
          options?.timeoutMs,
        );
      },
    ]),
  ) as LabMethods;
  return { mode: 'electron', methods, on: (event, listener) => lab.on(event, listener) };
}
