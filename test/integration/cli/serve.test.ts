import { describe, expect, test } from 'vitest';
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { createClient } from '../../../electron/ipc/common/client';
import type { LabContract } from '../../../electron/ipc/common/contract';
import { createWebSocketClientTransport, type WebSocketLike } from '../../../electron/ipc/common/websocket-client';
import { runT1lab } from '../../helpers/cli';
import { startServe } from '../../helpers/serve';
import { makeTempDir } from '../../helpers/tmp';

function status(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end();
  });
}

describe('t1lab serve', () => {
  test('binds loopback, prints exactly one line with the URL, and a fresh token each launch', async () => {
    const a = await startServe({ fromSource: true });
    const b = await startServe({ fromSource: true });
    try {
      expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
      expect(a.token).not.toBe(b.token);
      expect(await status(a.url)).toBe(200);
      expect(await status(`${a.origin}/`)).toBe(401);
      expect(a.stderr()).not.toContain('warning');
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  test('--token and T1LAB_TOKEN set the token', async () => {
    const viaFlag = await startServe({ fromSource: true, args: ['--token', 'flag-token-0123456789'] });
    const viaEnv = await startServe({ fromSource: true, env: { T1LAB_TOKEN: 'env-token-0123456789ab' } });
    try {
      expect(viaFlag.token).toBe('flag-token-0123456789');
      expect(viaEnv.token).toBe('env-token-0123456789ab');
    } finally {
      await viaFlag.stop();
      await viaEnv.stop();
    }
  });

  test('binding beyond loopback needs --host and prints a warning', async () => {
    const s = await startServe({ fromSource: true, args: ['--host', '0.0.0.0'] });
    try {
      expect(s.stderr()).toContain('warning: serving on 0.0.0.0, not loopback');
      expect(await status(s.url)).toBe(200);
    } finally {
      await s.stop();
    }
  });

  test('bad flags are usage errors naming the flag', async () => {
    const port = await runT1lab(['serve', '--port', 'eighty']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("--port: 'eighty' is not a port number");
    const token = await runT1lab(['serve', '--token', 'short']);
    expect(token.code).toBe(2);
    expect(token.stderr).toContain('at least 16 characters');
  });

  test('a worker that dies under the host does not take the web host down', async () => {
    const home = makeTempDir();
    const s = await startServe({ fromSource: true, env: { T1LAB_HOME: home.path } });
    const ws = new WebSocket(`${s.origin.replace('http', 'ws')}/ipc?token=${s.token}`);
    const client = createClient<LabContract>(createWebSocketClientTransport(ws as unknown as WebSocketLike));
    try {
      // Kill the doctor's probe worker as soon as it reports a pid.
      const killed = new Promise<string>((resolve) => {
        client.on('system.worker', (w) => {
          if (w.name === 'probe' && w.pid && w.state === 'ready') {
            process.kill(w.pid, 'SIGKILL');
            resolve(`killed ${w.pid}`);
          }
        });
      });
      await client.call('system.ping', {});
      const report = client.call('system.doctor', {});
      await killed;
      const r = await report;
      expect(r.node).toBe(process.versions.node);
      await expect(client.call('system.ping', { echo: 'alive' })).resolves.toMatchObject({ echo: 'alive' });
      const probe = (await client.call('system.workers', {})).find((w) => w.name === 'probe');
      expect(probe).toBeDefined();
      // The doctor's probe either finished before the kill landed or reported the crash as data.
      const cpu = r.onnxruntime.providers.find((p) => p.name === 'cpu');
      if (!cpu?.available) expect(cpu?.reason).toMatch(/probe worker failed/);
    } finally {
      client.close();
      await s.stop();
      home.remove();
    }
  });
});
