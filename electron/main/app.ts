/**
 * The desktop app's wiring, with Electron injected: security baseline, app:// protocol, one window, the
 * lab host served over Electron IPC, workers as utilityProcesses.
 */
import { join } from 'node:path';
import { createLabHost, type LabHost } from '../lab/host';
import { labDataDir } from '../lab/paths';
import { serveElectronIpc } from '../ipc/electron/main-transport';
import type { BrowserWindowLike, ElectronDeps, WindowOptions } from './deps';
import { appProtocolHandler, APP_SCHEME, registerAppScheme } from './protocol';
import { APP_URL, denyAllPermissions, hardenWebContents } from './security';
import { utilityLauncher } from './utility-launcher';

export interface DesktopApp {
  /** Resolves when the window has loaded. */
  readonly ready: Promise<{ window: BrowserWindowLike; host: LabHost }>;
}

export function windowOptions(preloadPath: string): WindowOptions {
  return {
    width: 1400,
    height: 900,
    show: false,
    title: 'T1 Lab',
    backgroundColor: '#0f1115',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  };
}

/** Call at module load, before 'ready' (scheme registration and the sandbox switch must precede it). */
export function startDesktopApp(electron: ElectronDeps): DesktopApp {
  const { app, protocol, ipcMain, session, shell, utilityProcess, BrowserWindow } = electron;
  app.enableSandbox();
  registerAppScheme(protocol);
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, shell));

  const ready = app.whenReady().then(async () => {
    const root = app.getAppPath();
    denyAllPermissions(session.defaultSession);
    protocol.handle(APP_SCHEME, appProtocolHandler(join(root, 'dist', 'renderer')));
    const { Notification } = electron;
    const notify = Notification?.isSupported()
      ? (title: string, body: string) => new Notification({ title, body }).show()
      : undefined;
    const host = createLabHost({ dataDir: labDataDir(), launcher: utilityLauncher(utilityProcess), notify });
    serveElectronIpc(ipcMain, (connection) => host.attach(connection));
    const window = new BrowserWindow(windowOptions(join(root, 'dist', 'node', 'preload.cjs')));
    window.once('ready-to-show', () => window.show());
    app.on('window-all-closed', () => app.quit());
    app.on('before-quit', () => void host.dispose());
    await window.loadURL(APP_URL);
    return { window, host };
  });
  return { ready };
}
