/**
 * Fakes of the Electron objects main and the preload use, recording what was done to them, so the wiring
 * is tested without the Electron binary. Only the transport is faked: the router, host and client are real.
 */
import { EventEmitter } from 'node:events';
import type { ElectronDeps, WebContentsHooks, WindowOptions } from '../../electron/main/deps';
import type { IpcMainEventLike, IpcMainLike, WebContentsLike } from '../../electron/ipc/electron/main-transport';
import type { IpcRendererLike } from '../../electron/ipc/electron/renderer-transport';

export class FakeWebContents extends EventEmitter implements WebContentsHooks, WebContentsLike {
  static nextId = 1;
  readonly id = FakeWebContents.nextId++;
  readonly mainFrame = { url: 'app://lab/index.html' };
  destroyed = false;
  windowOpenHandler: ((details: { url: string }) => { action: 'deny' | 'allow' }) | null = null;
  sent: string[] = [];
  /** Where frames sent to this renderer go (the fake ipcRenderer of its preload). */
  deliver: (frame: string) => void = (f) => this.sent.push(f);
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' | 'allow' }) {
    this.windowOpenHandler = handler;
  }
  send(_channel: string, frame: string) {
    this.deliver(frame);
  }
  isDestroyed() {
    return this.destroyed;
  }
  destroy() {
    this.destroyed = true;
    this.emit('destroyed');
  }
  /** Simulate a navigation attempt; returns whether it was prevented. */
  navigate(url: string, event: 'will-navigate' | 'will-redirect' = 'will-navigate'): boolean {
    let prevented = false;
    this.emit(event, { preventDefault: () => (prevented = true) }, url);
    return prevented;
  }
}

export class FakeIpcMain implements IpcMainLike {
  readonly listeners = new Map<string, ((event: IpcMainEventLike, frame: unknown) => void)[]>();
  on(channel: string, listener: (event: IpcMainEventLike, frame: unknown) => void) {
    this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), listener]);
  }
  removeListener(channel: string, listener: (event: IpcMainEventLike, frame: unknown) => void) {
    this.listeners.set(
      channel,
      (this.listeners.get(channel) ?? []).filter((l) => l !== listener),
    );
  }
  /** A frame arriving from `sender`, as if from the given frame URL. */
  receive(
    channel: string,
    sender: FakeWebContents,
    frame: unknown,
    senderFrame: { url: string } | null = sender.mainFrame,
  ) {
    for (const l of this.listeners.get(channel) ?? []) l({ sender, senderFrame }, frame);
  }
}

/** A preload-side ipcRenderer wired to a FakeIpcMain through one FakeWebContents. */
export function fakeIpcRenderer(
  ipcMain: FakeIpcMain,
  contents: FakeWebContents,
  senderFrame?: { url: string },
): IpcRendererLike {
  const listeners: ((event: unknown, frame: unknown) => void)[] = [];
  contents.deliver = (frame) => setImmediate(() => listeners.forEach((l) => l({}, frame)));
  return {
    send: (channel, frame) =>
      setImmediate(() => ipcMain.receive(channel, contents, frame, senderFrame ?? contents.mainFrame)),
    on: (_channel, listener) => listeners.push(listener),
  };
}

export function fakeElectron() {
  const calls: string[] = [];
  const app = new EventEmitter() as EventEmitter & ElectronDeps['app'];
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));
  Object.assign(app, {
    enableSandbox: () => calls.push('app.enableSandbox'),
    whenReady: () => ready,
    quit: () => calls.push('app.quit'),
    getAppPath: () => '/opt/t1lab',
    getPath: () => '/tmp/t1lab-user-data',
  });
  const schemes: { scheme: string; privileges: Record<string, boolean> }[] = [];
  const handlers = new Map<string, (request: Request) => Response | Promise<Response>>();
  const protocol: ElectronDeps['protocol'] = {
    registerSchemesAsPrivileged: (s) => {
      calls.push('protocol.registerSchemesAsPrivileged');
      schemes.push(...s);
    },
    handle: (scheme, handler) => {
      calls.push(`protocol.handle:${scheme}`);
      handlers.set(scheme, handler);
    },
  };
  const windows: { options: WindowOptions; contents: FakeWebContents; loaded: string[] }[] = [];
  class BrowserWindow {
    readonly webContents = new FakeWebContents();
    readonly loaded: string[] = [];
    constructor(options: WindowOptions) {
      windows.push({ options, contents: this.webContents, loaded: this.loaded });
      app.emit('web-contents-created', {}, this.webContents);
    }
    async loadURL(url: string) {
      this.loaded.push(url);
    }
    once() {}
    show() {}
  }
  const permission = {
    request: null as null | ((wc: unknown, p: string, cb: (g: boolean) => void) => void),
    check: null as null | ((wc: unknown, p: string) => boolean),
  };
  const session: ElectronDeps['session'] = {
    defaultSession: {
      setPermissionRequestHandler: (h) => (permission.request = h),
      setPermissionCheckHandler: (h) => (permission.check = h),
    },
  };
  const opened: string[] = [];
  const ipcMain = new FakeIpcMain();
  const deps: ElectronDeps = {
    app,
    protocol,
    BrowserWindow,
    ipcMain,
    session,
    shell: { openExternal: async (url) => void opened.push(url) },
    utilityProcess: {
      fork: () => {
        throw new Error('no utility processes in this fake');
      },
    },
  };
  return { deps, calls, schemes, handlers, windows, permission, opened, ipcMain, ready: () => resolveReady() };
}
