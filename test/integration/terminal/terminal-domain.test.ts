/**
 * The terminal domain through the real host (router + pty host worker), over an in-memory connection as
 * the UI would use it: open, type, stream with acks, resize, limits, ownership, close on disconnect.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../../electron/ipc/common/client';
import type { LabContract } from '../../../electron/ipc/common/contract';
import { createMemoryPair } from '../../../electron/ipc/common/memory';
import { createLabHost, type LabHost } from '../../../electron/lab/host';
import { forkLauncher } from '../../../electron/processes/launcher';
import { makeTempDir } from '../../helpers/tmp';
import { leftoverSandboxes } from '../../helpers/sandbox';

const data = makeTempDir('t1lab-termdata-');
const ws = makeTempDir('t1lab-termws-');
let host: LabHost;

function connect(label: string): { client: Client<LabContract>; disconnect(): void } {
  const pair = createMemoryPair(label);
  const attached = host.attach(pair.server);
  const client = createClient<LabContract>(pair.client);
  return { client, disconnect: () => (client.close(), attached.dispose()) };
}

async function waitFor(cond: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(() => {
  host = createLabHost({ dataDir: data.path, launcher: forkLauncher, log: () => {} });
});
afterAll(async () => {
  await host.dispose();
  data.remove();
  ws.remove();
  await new Promise((r) => setTimeout(r, 300));
  expect(leftoverSandboxes()).toEqual([]);
});

describe('terminal domain', () => {
  it('reports defaults, whether the sandbox works, and how limits are enforced', async () => {
    const { client, disconnect } = connect('ui');
    const d = await client.call('terminal.defaults', {});
    expect(d.sandbox.ok).toBe(true);
    expect(d.limits.wallSeconds).toBe(0);
    expect(d.enforcement?.limits.memoryMb).toBeTruthy();
    disconnect();
  });

  it('opens a shell on a temporary workspace, streams what is typed, and removes the workspace on close', async () => {
    const { client, disconnect } = connect('ui');
    let text = '';
    let acked = 0;
    client.on('terminal.data', ({ data: d }) => {
      text += d;
      acked += d.length;
    });
    const t = await client.call('terminal.open', { cols: 90, rows: 20, limits: { memoryMb: 512 }, record: true });
    expect(t).toMatchObject({ temporary: true, net: false, workdir: '/app', state: 'running', cols: 90, rows: 20 });
    expect(t.limits.memoryMb).toBe(512);
    expect(existsSync(t.workspace)).toBe(true);
    await client.call('terminal.input', { id: t.id, data: 'echo typed-$((6*7))\r' });
    await waitFor(() => text.includes('typed-42'));
    expect(text).not.toContain('6973');
    await client.call('terminal.ack', { id: t.id, chars: acked });
    await client.call('terminal.resize', { id: t.id, cols: 100, rows: 30 });
    await client.call('terminal.input', { id: t.id, data: 'stty size\r' });
    await waitFor(() => text.includes('30 100'));
    expect((await client.call('terminal.list', {})).map((x) => x.id)).toEqual([t.id]);
    await client.call('terminal.close', { id: t.id });
    expect(existsSync(t.workspace)).toBe(false);
    expect(t.recordingPath && existsSync(t.recordingPath)).toBe(true);
    disconnect();
  });

  it('reports the exit of the shell and the limit that fired', async () => {
    const { client, disconnect } = connect('ui');
    const exits: unknown[] = [];
    const limits: unknown[] = [];
    client.on('terminal.exit', (e) => exits.push(e));
    client.on('terminal.limit', (e) => limits.push(e));
    const t = await client.call('terminal.open', { workspace: ws.path, limits: { workspaceMb: 5 } });
    await client.call('terminal.input', {
      id: t.id,
      data: 'for i in $(seq 100); do head -c 1000000 /dev/zero > /app/f$i; sleep 0.05; done\r',
    });
    await waitFor(() => limits.length > 0);
    expect(limits[0]).toMatchObject({ id: t.id, limit: 'workspaceMb' });
    await client.call('terminal.input', { id: t.id, data: 'rm -f /app/f*; exit 3\r' });
    await waitFor(() => exits.length > 0);
    expect(exits[0]).toEqual({ id: t.id, exitCode: 3, limit: null });
    expect((await client.call('terminal.list', {}))[0]?.state).toBe('exited');
    await client.call('terminal.close', { id: t.id });
    expect(existsSync(ws.path)).toBe(true); // a given workspace is the user's: never removed
    disconnect();
  });

  it("keeps each connection's terminals to itself and closes them when it goes away", async () => {
    const a = connect('a');
    const b = connect('b');
    const t = await a.client.call('terminal.open', {});
    await expect(b.client.call('terminal.input', { id: t.id, data: 'echo intruder\r' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(await b.client.call('terminal.list', {})).toEqual([]);
    a.disconnect();
    await waitFor(() => !existsSync(t.workspace));
    b.disconnect();
  });

  it('refuses a workspace that would expose a protected path', async () => {
    const { client, disconnect } = connect('ui');
    await expect(client.call('terminal.open', { workspace: '/' })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(client.call('terminal.open', { limits: { memoryMb: 1 } })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    disconnect();
  });
});
