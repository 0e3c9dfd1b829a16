import { describe, expect, test } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '../../../electron/ipc/common/client';
import type { LabContract } from '../../../electron/ipc/common/contract';
import { labMethodNames, type PreloadLab } from '../../../electron/ipc/common/lab-api';
import { createElectronRendererTransport } from '../../../electron/ipc/electron/renderer-transport';
import { startDesktopApp } from '../../../electron/main/app';
import { appProtocolHandler } from '../../../electron/main/protocol';
import { APP_URL } from '../../../electron/main/security';
import { exposeLab } from '../../../electron/preload/expose';
import { fakeElectron, fakeIpcRenderer, FakeWebContents } from '../../helpers/fake-electron';
import { makeTempDir } from '../../helpers/tmp';

async function started() {
  const fake = fakeElectron();
  const app = startDesktopApp(fake.deps);
  expect(fake.calls.slice(0, 2)).toEqual(['app.enableSandbox', 'protocol.registerSchemesAsPrivileged']); // both before ready
  fake.ready();
  const { host } = await app.ready;
  return { fake, host };
}

describe('Electron main wiring (injected, no binary)', () => {
  test('the window is sandboxed, isolated, without Node, loading app://', async () => {
    const { fake, host } = await started();
    expect(fake.windows).toHaveLength(1);
    const prefs = fake.windows[0]!.options.webPreferences;
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      webviewTag: false,
    });
    expect(prefs.preload).toBe('/opt/t1lab/dist/node/preload.cjs');
    expect(fake.windows[0]!.loaded).toEqual([APP_URL]);
    expect(fake.schemes[0]).toMatchObject({ scheme: 'app', privileges: { standard: true, secure: true } });
    expect(fake.calls).toContain('protocol.handle:app');
    await host.dispose();
  });

  test('navigation away from app:// and new windows are blocked; allow-listed links open outside', async () => {
    const { fake, host } = await started();
    const contents = fake.windows[0]!.contents;
    expect(contents.navigate('https://evil.example/')).toBe(true);
    expect(contents.navigate('file:///etc/passwd', 'will-redirect')).toBe(true);
    expect(contents.navigate('app://lab/index.html#/system')).toBe(false);
    expect(contents.windowOpenHandler?.({ url: 'https://evil.example/' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler?.({ url: 'https://github.com/harbor-framework/harbor' })).toEqual({
      action: 'deny',
    });
    await new Promise((r) => setTimeout(r, 0));
    expect(fake.opened).toEqual(['https://github.com/harbor-framework/harbor']);
    let attached = true;
    contents.emit('will-attach-webview', { preventDefault: () => (attached = false) });
    expect(attached).toBe(false);
    await host.dispose();
  });

  test('every permission request and check is denied', async () => {
    const { fake, host } = await started();
    const granted: boolean[] = [];
    for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read'])
      fake.permission.request?.({}, p, (g) => granted.push(g));
    expect(granted).toEqual([false, false, false, false]);
    expect(fake.permission.check?.({}, 'media')).toBe(false);
    await host.dispose();
  });

  test('the preload exposes one function per contract method, and they reach the host', async () => {
    const { fake, host } = await started();
    const contents = fake.windows[0]!.contents;
    let exposed: PreloadLab | null = null;
    exposeLab(
      { exposeInMainWorld: (key, api) => key === 'lab' && (exposed = api as PreloadLab) },
      fakeIpcRenderer(fake.ipcMain, contents),
    );
    const lab = exposed as unknown as PreloadLab;
    for (const name of labMethodNames) expect(typeof lab[name]).toBe('function');
    const fnKeys = Object.keys(lab).filter((k) => typeof (lab as unknown as Record<string, unknown>)[k] === 'function');
    expect(fnKeys.sort()).toEqual([...labMethodNames, 'cancel', 'on'].sort());
    await expect(lab['system.ping']({ echo: 'from the renderer' })).resolves.toMatchObject({
      echo: 'from the renderer',
    });
    await host.dispose();
  });

  test('frames from a frame that is not our app:// main frame are refused (sender check)', async () => {
    const { fake, host } = await started();
    const contents = fake.windows[0]!.contents;
    const client = createClient<LabContract>(
      createElectronRendererTransport(fakeIpcRenderer(fake.ipcMain, contents, { url: 'https://evil.example/ad.html' })),
    );
    await expect(client.call('system.ping', {})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const stranger = new FakeWebContents();
    const other = createClient<LabContract>(
      createElectronRendererTransport(fakeIpcRenderer(fake.ipcMain, stranger, { url: 'app://lab/index.html' })),
    );
    // Not the main frame of its webContents (a different frame object): refused too.
    await expect(other.call('system.ping', {})).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await host.dispose();
  });

  test('a non-string IPC payload is answered MALFORMED and the host stays up', async () => {
    const { fake, host } = await started();
    const contents = fake.windows[0]!.contents;
    fake.ipcMain.receive('lab', contents, { t: 'req', id: 'x', method: 'system.ping', params: {} });
    await new Promise((r) => setTimeout(r, 10));
    expect(JSON.parse(contents.sent.at(-1) as string)).toMatchObject({ ok: false, error: { code: 'MALFORMED' } });
    fake.ipcMain.receive('lab', contents, JSON.stringify({ t: 'req', id: 'y', method: 'system.ping', params: {} }));
    await new Promise((r) => setTimeout(r, 10));
    expect(JSON.parse(contents.sent.at(-1) as string)).toMatchObject({ id: 'y', ok: true });
    await host.dispose();
  });

  test('a destroyed window is a closed connection', async () => {
    const { fake, host } = await started();
    const contents = fake.windows[0]!.contents;
    fake.ipcMain.receive('lab', contents, JSON.stringify({ t: 'req', id: 'y', method: 'system.ping', params: {} }));
    await new Promise((r) => setTimeout(r, 10));
    expect(host.router.connectionCount).toBe(1);
    contents.destroy();
    expect(host.router.connectionCount).toBe(0);
    await host.dispose();
  });
});

describe('app:// protocol', () => {
  test('serves the bundle with the CSP, and nothing outside it', async () => {
    const tmp = makeTempDir();
    const dir = join(tmp.path, 'renderer');
    mkdirSync(dir);
    writeFileSync(join(dir, 'index.html'), '<title>T1 Lab</title>');
    writeFileSync(join(tmp.path, 'secret.txt'), 'secret');
    const handle = appProtocolHandler(dir);
    const index = await handle(new Request('app://lab/'));
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('T1 Lab');
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect((await handle(new Request('app://lab/../secret.txt'))).status).not.toBe(200);
    expect((await handle(new Request('app://lab/%2e%2e/secret.txt'))).status).toBe(404);
    expect((await handle(new Request('app://other/index.html'))).status).toBe(404);
    tmp.remove();
  });
});

describe('utilityProcess launcher', () => {
  test('posts frames, relays messages and reports the exit once, with its reason', async () => {
    const { EventEmitter } = await import('node:events');
    const { utilityLauncher } = await import('../../../electron/main/utility-launcher');
    const posted: unknown[] = [];
    const forks: { modulePath: string; serviceName: string; env: Record<string, string | undefined> }[] = [];
    let killed = 0;
    const child = Object.assign(new EventEmitter(), {
      pid: 4242,
      postMessage: (m: unknown) => posted.push(m),
      kill: () => (killed++, true),
    });
    const launcher = utilityLauncher({
      fork: (modulePath, _args, options) => {
        forks.push({ modulePath, serviceName: options.serviceName, env: options.env });
        return child as never;
      },
    });
    const handle = launcher.launch({ name: 'pty-host', modulePath: '/app/dist/node/worker-pty-host.js', execArgv: [] });
    expect(forks[0]).toMatchObject({
      modulePath: '/app/dist/node/worker-pty-host.js',
      serviceName: 't1lab-pty-host',
      env: { T1LAB_WORKER: 'pty-host' },
    });
    expect(handle.pid).toBe(4242);
    handle.post('{"t":"req"}');
    expect(posted).toEqual(['{"t":"req"}']);
    const received: unknown[] = [];
    handle.onMessage((m) => received.push(m));
    child.emit('message', '{"t":"res"}');
    expect(received).toEqual(['{"t":"res"}']);
    const exits: string[] = [];
    handle.onExit((reason) => exits.push(reason));
    child.emit('exit', 3);
    child.emit('exit', 3);
    expect(exits).toEqual(['exited with code 3']);
    handle.kill();
    expect(killed).toBe(0); // already gone: nothing to kill
  });
});
