/**
 * A container's terminal through the Engine API (`attach` on a tty container, hijacked) presented as the
 * small part of node-pty's IPty that the sandbox pty uses (data, exit, write, resize, pause, resume), so
 * that ContainerPty (wall clock, notices, commit-then-exit) serves the API backend unchanged. The exit is
 * reported once the attach stream has ended and the engine says the container stopped: every byte the
 * container wrote has been delivered by then.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Duplex } from 'node:stream';
import type * as Pty from 'node-pty';
import type Docker from 'dockerode';
import type { ApiEngine } from './client';
import { exitStatus } from './exit-status';

type Listener<T> = (value: T) => void;

export class AttachedTerminal {
  private readonly data = new Set<Listener<string>>();
  private readonly exit = new Set<Listener<{ exitCode: number; signal?: number }>>();
  private readonly decoder = new StringDecoder('utf8');
  /** Output that came before anyone listened (the first prompt races the set-up after the start). */
  private early: string[] | null = [];
  /** The container's main process as the host sees it (0 until known). */
  pid = 0;

  /** Made right after the attach, before the start: nothing the container writes is missed. */
  constructor(
    private readonly container: Docker.Container,
    private readonly stream: Duplex,
    engine: ApiEngine,
  ) {
    stream.on('data', (chunk: Buffer) => this.emit(this.decoder.write(chunk)));
    const ended = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', () => resolve());
    });
    void ended
      .then(() => this.emit(this.decoder.end()))
      .then(() => exitStatus(container, engine))
      .then(
        (code) => code ?? 137,
        () => 137,
      )
      .then((exitCode) => {
        for (const l of this.exit) l({ exitCode });
      });
  }

  private emit(text: string): void {
    if (!text) return;
    if (this.early) this.early.push(text);
    else for (const l of this.data) l(text);
  }

  onData(listener: Listener<string>) {
    this.data.add(listener);
    // Delivered after whoever started the shell has subscribed to it too (it does so as the start resolves).
    if (this.early)
      setImmediate(() => {
        const early = this.early ?? [];
        this.early = null;
        for (const text of early) this.emit(text);
      });
    return { dispose: () => void this.data.delete(listener) };
  }

  onExit(listener: Listener<{ exitCode: number; signal?: number }>) {
    this.exit.add(listener);
    return { dispose: () => void this.exit.delete(listener) };
  }

  write(data: string): void {
    if (!this.stream.destroyed) this.stream.write(data);
  }

  resize(cols: number, rows: number): void {
    void this.container.resize({ h: rows, w: cols }).catch(() => {});
  }

  pause(): void {
    this.stream.pause();
  }

  resume(): void {
    this.stream.resume();
  }

  /** As the sandbox pty sees it (a node-pty terminal): only the members above are used. */
  asPty(): Pty.IPty {
    return this as unknown as Pty.IPty;
  }
}
