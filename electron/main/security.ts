/**
 * The renderer's security baseline (REFERENCE.md, Electron): our app:// origin only, no navigation away,
 * no new windows (allow-listed links open in the user's browser), no webviews, every permission denied.
 */
import type { ElectronDeps, WebContentsHooks } from './deps';

export const APP_ORIGIN = 'app://lab';
export const APP_URL = `${APP_ORIGIN}/index.html`;

/** Links the UI may open in the user's browser; everything else is dropped. */
export const EXTERNAL_ALLOWLIST = [
  /^https:\/\/github\.com\//,
  /^https:\/\/www\.tbench\.ai\//,
  /^https:\/\/harborframework\.com\//,
];

export function isAppUrl(url: string): boolean {
  return url === APP_ORIGIN || url.startsWith(`${APP_ORIGIN}/`);
}

export function hardenWebContents(contents: WebContentsHooks, shell: ElectronDeps['shell']): void {
  const stayHome = (event: { preventDefault(): void }, url: string) => {
    if (!isAppUrl(url)) event.preventDefault();
  };
  contents.on('will-navigate', stayHome);
  contents.on('will-redirect', stayHome);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (EXTERNAL_ALLOWLIST.some((re) => re.test(url))) void shell.openExternal(url);
    return { action: 'deny' };
  });
}

export function denyAllPermissions(session: ElectronDeps['session']['defaultSession']): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}
