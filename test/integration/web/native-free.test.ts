/**
 * The web host process (like Electron main, which imports the same lab host) stays free of native modules:
 * node-pty runs in the pty host worker, onnxruntime in the policy worker. The check reads the running
 * `t1lab serve` process's memory map, after the UI opened a WebSocket and asked for the system's state.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { startServe, type ServeProcess } from '../../helpers/serve';
import { makeTempDir } from '../../helpers/tmp';

const home = makeTempDir('t1lab-native-free-');
let serve: ServeProcess;

beforeAll(async () => {
  serve = await startServe({ env: { T1LAB_HOME: home.path } });
});
afterAll(async () => {
  await serve.stop();
  home.remove();
});

/** Native libraries mapped into a process (shared objects, node addons). */
function nativeLibraries(pid: number): string[] {
  const paths = readFileSync(`/proc/${pid}/maps`, 'utf8')
    .split('\n')
    .map((l) => l.split(/\s+/).slice(5).join(' '))
    .filter((p) => /\.node$|\.so(\.|$)/.test(p));
  return [...new Set(paths)];
}

describe('the web host process', () => {
  test('maps neither node-pty nor onnxruntime, also after a UI connected and asked for terminal defaults, models and workers', async () => {
    const ws = new WebSocket(`${serve.origin.replace('http', 'ws')}/ipc?token=${encodeURIComponent(serve.token)}`);
    await new Promise<void>((resolve, reject) => {
      ws.on('open', () => resolve());
      ws.on('error', reject);
    });
    // A few ordinary requests: whatever they load on first use must not be a native runtime.
    const calls: [string, unknown][] = [
      ['terminal.defaults', {}],
      ['models.list', { roots: [] }],
      ['system.workers', {}],
      ['system.ping', {}],
    ];
    for (const [i, [method, params]] of calls.entries()) {
      const reply = await new Promise<{ ok: boolean }>((resolve) => {
        const onMessage = (data: Buffer) => {
          const frame = JSON.parse(data.toString()) as { t: string; id?: string; ok: boolean };
          if (frame.t !== 'res' || frame.id !== `r${i}`) return;
          ws.off('message', onMessage);
          resolve(frame);
        };
        ws.on('message', onMessage);
        ws.send(JSON.stringify({ t: 'req', id: `r${i}`, method, params }));
      });
      expect([method, reply.ok]).toEqual([method, true]);
    }
    ws.close();
    const libs = nativeLibraries(serve.child.pid!);
    expect(libs.filter((p) => /pty\.node|node-pty/.test(p))).toEqual([]);
    expect(libs.filter((p) => /onnxruntime/.test(p))).toEqual([]);
  });
});
