/**
 * `ShellSession` over a sandboxed pty: bash with the marker protocol (shell-rc.ts), a headless screen, a
 * plain-text transcript for `readNew`, optional asciicast recording.
 *
 * `run` pastes the command (bracketed paste: multi-line scripts and tabs arrive as typed text, not as
 * keystrokes) and presses Enter; PS0's marker starts the output, PROMPT_COMMAND's marker ends it with the
 * status. Nothing waits on process exit, so a fast command's output is never lost to exit ordering.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { LimitEvent, LimitName, PtyProcess, SandboxBackend, SandboxSpec } from '../sandbox/types';
import { HeadTail } from '../util/head-tail';
import { AsciicastRecorder } from './asciicast';
import { keyBytes } from './keys';
import { MarkerFilter, type Token } from './markers';
import { watchInputWait } from './input-wait';
import { HeadlessScreen } from './screen';
import { BASH_RC, hostRcFile, NONCE_ENV, SANDBOX_RC_PATH } from './shell-rc';
import { TextLog } from './text-log';
import type { CommandResult, NamedKey, ShellSession } from './types';

export const DEFAULT_COLS = 160;
export const DEFAULT_ROWS = 40;
export const DEFAULT_OUTPUT_CHARS = 16_000;
export const DEFAULT_RUN_TIMEOUT_MS = 30_000;
/** How long `run` waits for the first prompt of a new shell before it gives up. */
const READY_TIMEOUT_MS = 30_000;
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

export interface ShellSessionOptions {
  backend: SandboxBackend;
  spec: SandboxSpec;
  cols?: number;
  rows?: number;
  /** Write an asciicast v2 recording here (host path). */
  recordPath?: string;
  /** Also record keystrokes as "i" events. */
  recordInput?: boolean;
  id?: string;
  /** Lines of scrollback kept by the headless screen. */
  scrollback?: number;
}

export class SessionBusyError extends Error {
  override readonly name = 'SessionBusyError';
}

export class SessionClosedError extends Error {
  override readonly name = 'SessionClosedError';
}

/** C-c for an incomplete command: how many times at most, and how long to wait for bash before the next. */
const INCOMPLETE_CANCEL_TRIES = 5;
const INCOMPLETE_CANCEL_RETRY_MS = 1_000;

interface PendingRun {
  acc: HeadTail;
  started: boolean;
  /** bash asked for more input (PS2): the command was cancelled with C-c. */
  incomplete?: boolean;
  startedAt: number;
  limit: LimitName | null;
  finish: (result: { exitCode: number | null; timedOut: boolean; waitingForInput?: boolean }) => void;
}

/** Start a sandboxed shell session; resolves once the process runs (use `ready()` to wait for the prompt). */
export async function createShellSession(options: ShellSessionOptions): Promise<SandboxShellSession> {
  const nonce = randomBytes(12).toString('hex');
  const spec: SandboxSpec = { ...options.spec, env: { ...options.spec.env, [NONCE_ENV]: nonce } };
  const cols = options.cols ?? DEFAULT_COLS;
  const rows = options.rows ?? DEFAULT_ROWS;
  const { backend } = options;
  const proc = backend.spawnShell
    ? await backend.spawnShell(spec, { rc: BASH_RC }, { cols, rows })
    : await backend.spawnPty(
        { ...spec, mounts: [...(spec.mounts ?? []), { host: hostRcFile(), sandbox: SANDBOX_RC_PATH, readOnly: true }] },
        ['/bin/bash', '--noprofile', '--rcfile', SANDBOX_RC_PATH, '-i'],
        { cols, rows },
      );
  return new SandboxShellSession(options.id ?? randomUUID(), proc, nonce, cols, rows, options);
}

export class SandboxShellSession implements ShellSession {
  private readonly filter: MarkerFilter;
  private readonly screenTerm: HeadlessScreen;
  private readonly log: TextLog;
  private readonly recorder: AsciicastRecorder | null;
  private readSink: HeadTail;
  private readPartial = '';
  private pending: PendingRun | null = null;
  /** performance.now() of the terminal's last output: a command waiting for input has gone quiet. */
  private lastOutputAt = performance.now();
  private skipPrompt = false;
  private isBusy = false;
  private isReady = false;
  /**
   * True from a prompt's marker (in PS1, drawn once readline has put the tty in raw mode and switched
   * bracketed paste on) until the next command starts or ends. Input written outside that window meets
   * the tty's cooked mode instead: it is echoed raw (`^[[200~…^[[201~`) and again by readline later.
   */
  private atPrompt = false;
  private readonly promptWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private exited: { exitCode: number | null; limit: string | null } | null = null;
  private closing: Promise<void> | null = null;
  private readonly readyWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private readonly dataListeners = new Set<(data: string) => void>();
  private readonly exitListeners = new Set<(exit: { exitCode: number | null; limit: string | null }) => void>();
  private readonly exitPromise: Promise<void>;
  /** The sandbox's processes are gone: onGone where the backend reports it, else the exit. */
  private readonly gonePromise: Promise<void>;
  private cols: number;
  private rows: number;
  private readonly maxReadChars: number;

  constructor(
    readonly id: string,
    private readonly proc: PtyProcess,
    nonce: string,
    cols: number,
    rows: number,
    options: ShellSessionOptions,
  ) {
    this.cols = cols;
    this.rows = rows;
    this.filter = new MarkerFilter(nonce);
    this.screenTerm = new HeadlessScreen(cols, rows, options.scrollback);
    // The transcript for readNew is kept with a generous budget; each read caps what it returns.
    this.maxReadChars = 4 * 1024 * 1024;
    this.readSink = new HeadTail(this.maxReadChars);
    this.log = new TextLog((text) => this.onText(text));
    this.recorder = options.recordPath
      ? new AsciicastRecorder(
          options.recordPath,
          {
            width: cols,
            height: rows,
            title: `t1lab session ${id}`,
            env: { SHELL: '/bin/bash', TERM: 'xterm-256color' },
          },
          { recordInput: options.recordInput },
        )
      : null;
    proc.onData((data) => this.onRaw(data));
    proc.onLimit?.((event) => {
      if (this.pending) this.pending.limit ??= event.limit;
    });
    this.exitPromise = new Promise((resolve) => {
      proc.onExit((exit) => {
        this.handleExit({ exitCode: exit.exitCode, limit: exit.limit });
        resolve();
      });
    });
    this.gonePromise = Promise.race([new Promise<void>((resolve) => proc.onGone?.(resolve)), this.exitPromise]);
  }

  /** Host pid of the sandbox's outer process. */
  get pid(): number {
    return this.proc.pid;
  }

  /** A sandbox limit fired and its offender was stopped (the shell lives on); also shown in the terminal. */
  onLimit(listener: (event: LimitEvent) => void): { dispose(): void } {
    return this.proc.onLimit?.(listener) ?? { dispose() {} };
  }

  get recordingPath(): string | null {
    return this.recorder?.path ?? null;
  }

  get busy(): boolean {
    return this.isBusy;
  }

  get alternateScreen(): boolean {
    return this.screenTerm.alternate;
  }

  private onRaw(raw: string): void {
    this.lastOutputAt = performance.now();
    for (const token of this.filter.push(raw)) this.onToken(token);
  }

  private onToken(token: Token): void {
    if (token.type === 'data') {
      this.screenTerm.write(token.text);
      this.recorder?.output(token.text);
      this.log.write(token.text);
      for (const l of this.dataListeners) l(token.text);
      return;
    }
    this.log.commitPartial();
    switch (token.kind) {
      case 'C':
        this.isBusy = true;
        this.atPrompt = false;
        if (this.pending && !this.pending.started) {
          // Output starts here: drop the echo of the command line.
          this.pending.started = true;
          this.pending.acc = new HeadTail(this.pending.acc.maxChars);
        }
        return;
      case 'D': {
        const wasBusy = this.isBusy;
        this.isBusy = false;
        this.atPrompt = false;
        const code = token.arg !== null && /^\d+$/.test(token.arg) ? Number(token.arg) : null;
        if (this.pending) {
          const p = this.pending;
          this.pending = null;
          p.finish({ exitCode: code, timedOut: false });
          this.skipPrompt = true;
        } else if (!wasBusy && !this.isReady) {
          this.skipPrompt = true; // the first prompt of the session: nothing to report yet
        }
        return;
      }
      case 'P':
        // bash shows its continuation prompt: the pasted command is incomplete (an unclosed quote, bracket,
        // here-document or `do` without `done`), and nothing else will ever complete it. A whole command is
        // pasted at once, so a complete one never reaches PS2. Cancel it rather than wait for the timeout
        // (a small policy's `echo 'x` held an episode for 180 s per turn).
        if (this.pending && !this.pending.incomplete) {
          this.pending.incomplete = true;
          this.cancelIncomplete(this.pending);
        }
        return;
      case 'B':
        if (this.skipPrompt) {
          this.skipPrompt = false;
          this.readSink = new HeadTail(this.maxReadChars);
          this.readPartial = '';
        }
        if (!this.isReady) {
          this.isReady = true;
          for (const w of this.readyWaiters.splice(0)) w.resolve();
        }
        this.atPrompt = true;
        for (const w of this.promptWaiters.splice(0)) w.resolve();
        return;
    }
  }

  /**
   * C-c for a command bash wants more input for, sent again while that run is still pending: on a loaded
   * machine one C-c sent as the continuation prompt is drawn can be lost, and the run then waited for its
   * whole timeout (seen once in a full test run, never alone).
   */
  private cancelIncomplete(run: PendingRun, tries = INCOMPLETE_CANCEL_TRIES): void {
    this.write('\x03');
    if (tries <= 1) return;
    const retry = setTimeout(() => {
      if (this.pending === run && !this.exited) this.cancelIncomplete(run, tries - 1);
    }, INCOMPLETE_CANCEL_RETRY_MS);
    retry.unref();
  }

  /** Committed transcript text goes to the pending run (if any) and to the readNew transcript. */
  private onText(text: string): void {
    this.pending?.acc.push(text);
    if (this.readPartial) {
      const rest = text.startsWith(this.readPartial) ? text.slice(this.readPartial.length) : text;
      this.readPartial = '';
      this.readSink.push(rest);
    } else this.readSink.push(text);
  }

  private handleExit(exit: { exitCode: number | null; limit: string | null }): void {
    const rest = this.filter.flush();
    if (rest) this.onToken({ type: 'data', text: rest });
    this.log.commitPartial();
    this.exited = exit;
    this.isBusy = false;
    if (this.pending) {
      const p = this.pending;
      this.pending = null;
      p.limit ??= (exit.limit as LimitName | null) ?? null;
      p.finish({ exitCode: exit.exitCode, timedOut: false });
    }
    for (const w of this.readyWaiters.splice(0))
      w.reject(new SessionClosedError(`session ${this.id} ended (exit code ${exit.exitCode}) before its first prompt`));
    for (const w of this.promptWaiters.splice(0))
      w.reject(new SessionClosedError(`session ${this.id} ended (exit code ${exit.exitCode}) before its next prompt`));
    for (const l of this.exitListeners) l(exit);
  }

  ready(): Promise<void> {
    if (this.isReady) return Promise.resolve();
    if (this.exited) return Promise.reject(new SessionClosedError(`session ${this.id} has ended`));
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  /** Resolves when readline shows its prompt (ready for input); at once when it already does. */
  private prompt(): Promise<void> {
    if (this.atPrompt) return Promise.resolve();
    if (this.exited) return Promise.reject(new SessionClosedError(`session ${this.id} has ended`));
    return new Promise((resolve, reject) => this.promptWaiters.push({ resolve, reject }));
  }

  async run(command: string, options: { timeoutMs?: number; maxOutputChars?: number } = {}): Promise<CommandResult> {
    if (this.exited || this.closing) throw new SessionClosedError(`session ${this.id} has ended`);
    if (this.pending || this.isBusy)
      throw new SessionBusyError(
        `session ${this.id}: a command is still running; send C-c or wait for it (readNew shows its output)`,
      );
    const timeoutMs = options.timeoutMs ?? DEFAULT_RUN_TIMEOUT_MS;
    const started = performance.now();
    await withTimeout(
      this.ready(),
      READY_TIMEOUT_MS,
      `session ${this.id}: the shell showed no prompt within ${READY_TIMEOUT_MS} ms`,
    );
    // The previous command's end marker comes before readline is back (a slow PS1, a loaded machine):
    // typing then would show the paste markers and the command twice. Wait for the prompt itself.
    await withTimeout(
      this.prompt(),
      READY_TIMEOUT_MS,
      `session ${this.id}: the shell showed no prompt within ${READY_TIMEOUT_MS} ms after the last command`,
    );
    if (this.pending || this.isBusy) throw new SessionBusyError(`session ${this.id}: a command is still running`);
    const maxChars = options.maxOutputChars ?? DEFAULT_OUTPUT_CHARS;
    return new Promise<CommandResult>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | null = null;
      let stopInputWatch: (() => void) | null = null;
      const pending: PendingRun = {
        acc: new HeadTail(maxChars),
        started: false,
        startedAt: started,
        limit: null,
        finish: ({ exitCode, timedOut, waitingForInput }) => {
          if (timer) clearTimeout(timer);
          stopInputWatch?.();
          const acc = pending.acc;
          // Everything up to here counts as read: readNew continues after it. A command left running has
          // printed a line it has not ended (a prompt, say): it is part of this output.
          if (timedOut || waitingForInput) {
            acc.push(this.log.partial);
            this.readPartial = this.log.partial;
          }
          this.readSink = new HeadTail(this.maxReadChars);
          const limit = pending.limit ?? limitFromStatus(exitCode);
          resolve({
            output: acc.text(),
            exitCode,
            timedOut,
            durationMs: Math.round(performance.now() - started),
            truncatedChars: acc.truncatedChars,
            limit,
            ...(pending.incomplete ? { incomplete: true } : {}),
            ...(waitingForInput ? { waitingForInput: true } : {}),
          });
        },
      };
      this.pending = pending;
      const reader = this.proc.terminalReader?.bind(this.proc);
      if (reader)
        stopInputWatch = watchInputWait({
          reader,
          lastOutputAt: () => this.lastOutputAt,
          judging: () => this.pending === pending && pending.started && !pending.incomplete,
          onWaiting: () => {
            if (this.pending !== pending) return;
            this.pending = null;
            pending.finish({ exitCode: null, timedOut: false, waitingForInput: true });
          },
        });
      timer = setTimeout(
        () => {
          if (this.pending !== pending) return;
          this.pending = null;
          pending.finish({ exitCode: null, timedOut: true });
        },
        Math.max(0, timeoutMs - (performance.now() - started)),
      );
      const text = command.replaceAll(PASTE_END, '').replace(/\r\n?/g, '\n').replace(/\n+$/, '');
      this.write(`${PASTE_START}${text}${PASTE_END}\r`);
    });
  }

  sendKeys(keys: (string | { key: NamedKey })[]): void {
    if (this.exited) throw new SessionClosedError(`session ${this.id} has ended`);
    const bytes = keys
      .map((k) => (typeof k === 'string' ? k : keyBytes(k.key, this.screenTerm.applicationCursor)))
      .join('');
    this.write(bytes);
  }

  /** Raw input, as typed (the UI terminal's keystrokes). */
  write(data: string): void {
    if (this.exited) return;
    this.recorder?.input(data);
    this.proc.write(data);
  }

  readNew(options: { maxOutputChars?: number } = {}): { output: string; truncatedChars: number } {
    const max = options.maxOutputChars ?? DEFAULT_OUTPUT_CHARS;
    const partial = this.log.partial;
    const sink = this.readSink;
    const tail = partial.startsWith(this.readPartial) ? partial.slice(this.readPartial.length) : partial;
    sink.push(tail);
    this.readSink = new HeadTail(this.maxReadChars);
    this.readPartial = partial;
    const text = sink.text();
    if (text.length <= max) return { output: text, truncatedChars: sink.truncatedChars };
    const head = Math.ceil(max / 2);
    const cut = text.length - max;
    return {
      output: `${text.slice(0, head)}\n[... ${cut + sink.truncatedChars} chars cut ...]\n${text.slice(text.length - (max - head))}`,
      truncatedChars: cut + sink.truncatedChars,
    };
  }

  screen() {
    return this.screenTerm.snapshot();
  }

  flushed(): Promise<void> {
    return this.screenTerm.flushed();
  }

  resize(cols: number, rows: number): void {
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 2 || rows < 1 || cols > 1000 || rows > 500) {
      throw new Error(`resize: ${cols}x${rows} is not a terminal size (2..1000 x 1..500)`);
    }
    if (cols === this.cols && rows === this.rows) return;
    this.cols = cols;
    this.rows = rows;
    this.proc.resize(cols, rows);
    this.screenTerm.resize(cols, rows);
    this.recorder?.resize(cols, rows);
  }

  pause(): void {
    this.proc.pause();
  }

  resume(): void {
    this.proc.resume();
  }

  get exitStatus(): { exitCode: number | null; limit: string | null } | null {
    return this.exited;
  }

  onData(listener: (data: string) => void) {
    this.dataListeners.add(listener);
    return { dispose: () => void this.dataListeners.delete(listener) };
  }

  onExit(listener: (exit: { exitCode: number | null; limit: string | null }) => void) {
    if (this.exited) {
      const e = this.exited;
      queueMicrotask(() => listener(e));
    }
    this.exitListeners.add(listener);
    return { dispose: () => void this.exitListeners.delete(listener) };
  }

  async stop(): Promise<void> {
    if (!this.exited) this.proc.kill();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.gonePromise, new Promise<void>((r) => (timer = setTimeout(r, 3_000)))]);
    clearTimeout(timer);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (!this.exited) {
        this.proc.kill();
        // The timer is cleared: left pending, it would hold a finished command-line process open for 3 s.
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([this.exitPromise, new Promise((r) => (timer = setTimeout(r, 3_000)))]);
        clearTimeout(timer);
      }
      await this.screenTerm.flushed();
      this.screenTerm.dispose();
      await this.recorder?.close().catch(() => {});
    })();
    return this.closing;
  }
}

/** Shells report a child killed by SIGXCPU / SIGXFSZ as 128+24 / 128+25. */
function limitFromStatus(code: number | null): LimitName | null {
  if (code === 152) return 'cpuSeconds';
  if (code === 153) return 'fileSizeMb';
  return null;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
