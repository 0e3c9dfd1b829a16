/**
 * Transports move text frames; they know nothing of methods. Every transport (Electron IPC, WebSocket,
 * process messaging, in-memory) implements these two sides, so the router and the client are written once.
 */

/** Who sent a frame, as far as the transport can tell. The router's `authorize` decides what that allows. */
export type Peer =
  | { kind: 'electron'; webContentsId: number; frameUrl: string; isMainFrame: boolean }
  | { kind: 'websocket'; remoteAddress: string; origin: string | null; authenticated: boolean }
  | { kind: 'process'; pid: number | null }
  | { kind: 'memory'; label: string };

export interface Disposable {
  dispose(): void;
}

/** The host's view of one connected client. */
export interface ServerConnection {
  readonly id: string;
  send(frame: string): void;
  /** `peer` is per frame: one Electron channel can carry frames from several frames or windows. */
  onFrame(listener: (frame: string, peer: Peer) => void): Disposable;
  onClose(listener: () => void): Disposable;
  close(): void;
}

/** The client's view of its connection to a host. */
export interface ClientTransport {
  send(frame: string): void;
  onFrame(listener: (frame: string) => void): Disposable;
  onClose(listener: (reason: string) => void): Disposable;
  close(): void;
}

/** A small listener list; each transport uses it for its onFrame/onClose. */
export class Emitter<A extends unknown[]> {
  private listeners = new Set<(...args: A) => void>();

  on(listener: (...args: A) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  fire(...args: A): void {
    for (const listener of [...this.listeners]) listener(...args);
  }

  clear(): void {
    this.listeners.clear();
  }

  get size(): number {
    return this.listeners.size;
  }
}
