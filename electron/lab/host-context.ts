/** What every domain's handlers get from the host: where data lives, the workers, how to emit events. */
import type { LabContract, LabEvent, LabEventPayload } from '../ipc/common/contract';
import type { WorkerRegistry } from './worker-registry';

export interface HostContext {
  readonly dataDir: string;
  readonly workers: WorkerRegistry;
  /** Broadcast an event to every subscribed client. */
  emit<E extends LabEvent>(event: E, payload: LabEventPayload<E>): void;
  /** Send an event to one connection (e.g. a terminal's bytes to the client that opened it). */
  emitTo<E extends LabEvent>(connectionId: string, event: E, payload: LabEventPayload<E>): void;
  /** Run `fn` when the connection closes (e.g. close the terminals it opened). */
  onDisconnect(connectionId: string, fn: () => void): void;
  readonly log: (message: string) => void;
  /** A desktop notification (Electron's Notification in the app; absent in web mode and the CLI). */
  readonly notify?: (title: string, body: string) => void;
}

export type { LabContract };
