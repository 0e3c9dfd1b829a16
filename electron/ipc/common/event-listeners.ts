/**
 * The listeners a client holds, by event name. The host is asked to send an event only while someone listens:
 * `onFirst` runs when an event gets its first listener (subscribe on the host), `onLast` when its last one
 * leaves (unsubscribe). The IPC client keeps its subscriptions with it, and the renderer's web connection
 * with it carries them over to each new connection.
 */
export type PayloadListener = (payload: unknown) => void;

export interface EventListenerHooks {
  onFirst(event: string): void;
  onLast(event: string): void;
}

export class EventListeners {
  private readonly byEvent = new Map<string, Set<{ listener: PayloadListener }>>();

  constructor(private readonly hooks: EventListenerHooks) {}

  /** Adds a listener; the function returned removes this one registration (calling it again does nothing). */
  add(event: string, listener: PayloadListener): () => void {
    let registrations = this.byEvent.get(event);
    if (!registrations) {
      registrations = new Set();
      this.byEvent.set(event, registrations);
      this.hooks.onFirst(event);
    }
    // Each registration is its own entry: the same function added twice is called twice and removed once each.
    const registration = { listener };
    registrations.add(registration);
    return () => {
      const current = this.byEvent.get(event);
      if (!current?.delete(registration) || current.size > 0) return;
      this.byEvent.delete(event);
      this.hooks.onLast(event);
    };
  }

  emit(event: string, payload: unknown): void {
    for (const { listener } of [...(this.byEvent.get(event) ?? [])]) listener(payload);
  }

  /** The events someone listens to now. */
  events(): string[] {
    return [...this.byEvent.keys()];
  }
}
