/**
 * The parts of Electron that main uses, as narrow interfaces. index.ts passes the real modules; the unit
 * tests pass fakes, so the wiring is tested without the Electron binary.
 */
import type { IpcMainLike } from '../ipc/electron/main-transport';

export interface WebContentsHooks {
  readonly id: number;
  on(
    event: 'will-navigate' | 'will-redirect',
    listener: (event: { preventDefault(): void }, url: string) => void,
  ): void;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): void;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' | 'allow' }): void;
}

export interface SessionLike {
  setPermissionRequestHandler(
    handler: (webContents: unknown, permission: string, callback: (granted: boolean) => void) => void,
  ): void;
  setPermissionCheckHandler(handler: (webContents: unknown, permission: string) => boolean): void;
}

export interface WindowOptions {
  width: number;
  height: number;
  show: boolean;
  title: string;
  backgroundColor: string;
  webPreferences: {
    preload: string;
    contextIsolation: true;
    sandbox: true;
    nodeIntegration: false;
    nodeIntegrationInWorker: false;
    webSecurity: true;
    allowRunningInsecureContent: false;
    webviewTag: false;
    spellcheck: false;
  };
}

export interface BrowserWindowLike {
  readonly webContents: WebContentsHooks;
  loadURL(url: string): Promise<void>;
  once(event: 'ready-to-show', listener: () => void): void;
  show(): void;
}

export interface UtilityProcessLike {
  readonly pid: number | undefined;
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): void;
  off?(event: 'message', listener: (message: unknown) => void): void;
  on(event: 'exit', listener: (code: number) => void): void;
  kill(): boolean;
}

export interface ElectronDeps {
  app: {
    enableSandbox(): void;
    whenReady(): Promise<void>;
    on(event: 'window-all-closed' | 'before-quit', listener: () => void): void;
    on(event: 'web-contents-created', listener: (event: unknown, contents: WebContentsHooks) => void): void;
    quit(): void;
    getAppPath(): string;
    getPath(name: 'userData'): string;
  };
  protocol: {
    registerSchemesAsPrivileged(schemes: { scheme: string; privileges: Record<string, boolean> }[]): void;
    handle(scheme: string, handler: (request: Request) => Response | Promise<Response>): void;
  };
  BrowserWindow: new (options: WindowOptions) => BrowserWindowLike;
  ipcMain: IpcMainLike;
  session: { defaultSession: SessionLike };
  shell: { openExternal(url: string): Promise<void> };
  /** Desktop notifications (a training run ended); optional so older fakes still fit. */
  Notification?: { isSupported(): boolean; new (options: { title: string; body: string }): { show(): void } };
  utilityProcess: {
    fork(
      modulePath: string,
      args: string[],
      options: { serviceName: string; env: Record<string, string | undefined>; execArgv: string[]; stdio: 'inherit' },
    ): UtilityProcessLike;
  };
}
