/** Electron main entry (bundled to dist/node/main.js): the only place that hands Electron's modules over. */
import { app, BrowserWindow, ipcMain, Notification, protocol, session, shell, utilityProcess } from 'electron';
import { startDesktopApp } from './app';
import type { ElectronDeps } from './deps';

const deps: ElectronDeps = { app, BrowserWindow, ipcMain, Notification, protocol, session, shell, utilityProcess };
startDesktopApp(deps).ready.catch((error: unknown) => {
  process.stderr.write(`T1 Lab failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  app.quit();
});
