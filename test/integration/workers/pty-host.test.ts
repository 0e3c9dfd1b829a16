/**
 * The pty host worker as a real process: many sessions, streaming with ack-based flow control, a session
 * that floods or dies without harming the others, and the harness-facing calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkerRegistry } from '../../../electron/lab/worker-registry';
import { forkLauncher } from '../../../electron/processes/launcher';
import { ptyHostContract } from '../../../electron/processes/contracts/pty-host';
import { FlowControl } from '../../../native/pty/flow';
import { makeTempDir } from '../../helpers/tmp';
import { leftoverSandboxes, testLimits } from '../../helpers/sandbox';

const ws = makeTempDir('t1lab-ptyhost-');
const registry = new WorkerRegistry(forkLauncher);
const worker = registry.get('pty-host', ptyHostContract);
const received = new Map<string, string[]>();

beforeAll(async () => {
  await worker.start();
  worker.on('pty.data', ({ id, data }) => {
    const list = received.get(id) ?? [];
    list.push(data);
    received.set(id, list);
  });
});
afterAll(async () => {
  await registry.stopAll();
  ws.remove();
  // The worker's sandboxes die with it.
  await new Promise((r) => setTimeout(r, 300));
  expect(leftoverSandboxes()).toEqual([]);
});

const open = (stream: boolean) =>
  worker.call('pty.open', {
    workspace: ws.path,
    net: false,
    limits: testLimits({ wallSeconds: 0 }),
    cols: 80,
    rows: 24,
    recordPath: null,
    stream,
  });
const textOf = (id: string) => (received.get(id) ?? []).join('');

async function waitFor(cond: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('pty host worker', () => {
  it('runs commands for the harness: run, keys, readNew, screen', async () => {
    const { id, pid } = await open(false);
    expect(pid).toBeGreaterThan(0);
    const r = await worker.call('pty.run', { id, command: 'echo from-worker; (exit 2)' });
    expect(r).toMatchObject({ output: 'from-worker\n', exitCode: 2, timedOut: false });
    await worker.call('pty.keys', { id, keys: ['echo keyed', { key: 'Enter' }] });
    await waitFor(async () => (await worker.call('pty.screen', { id })).lines.some((l) => l === 'keyed'));
    expect((await worker.call('pty.readNew', { id })).output).toContain('keyed');
    await expect(worker.call('pty.keys', { id, keys: [{ key: 'Hyper' }] })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
    await expect(worker.call('pty.run', { id: 'nope', command: 'true' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(received.has(id)).toBe(false); // not streamed
    await worker.call('pty.close', { id });
  });

  it('reports a bad workspace as INVALID_PARAMS with the fix', async () => {
    await expect(
      worker.call('pty.open', {
        workspace: `${ws.path}/missing`,
        net: false,
        limits: testLimits(),
        cols: 80,
        rows: 24,
        recordPath: null,
        stream: false,
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
      message: expect.stringContaining('mkdir -p'),
    });
  });

  it('pauses a flooding session until its output is acknowledged, while another session stays responsive', async () => {
    const flood = await open(true);
    const calm = await open(false);
    await worker.call('pty.input', { id: flood.id, data: 'yes flood-line-of-text\r' });
    // Without acks the worker stops sending at the high watermark (plus at most one batch).
    await waitFor(async () => (await worker.call('pty.list', {})).find((s) => s.id === flood.id)?.paused === true);
    await new Promise((r) => setTimeout(r, 500));
    const before = textOf(flood.id).length;
    expect(before).toBeGreaterThan(FlowControl.HIGH_WATERMARK_CHARS);
    expect(before).toBeLessThan(FlowControl.HIGH_WATERMARK_CHARS + FlowControl.BATCH_MAX_CHARS + 8192);
    await new Promise((r) => setTimeout(r, 500));
    expect(textOf(flood.id).length).toBe(before);
    // The other session is unaffected.
    expect((await worker.call('pty.run', { id: calm.id, command: 'echo still-here' })).output).toBe('still-here\n');
    // Acknowledging everything resumes the stream.
    await worker.call('pty.ack', { id: flood.id, chars: before });
    await waitFor(() => textOf(flood.id).length > before);
    await worker.call('pty.input', { id: flood.id, data: '\x03' });
    await worker.call('pty.stream', { id: flood.id, on: false });
    await worker.call('pty.close', { id: flood.id });
    await worker.call('pty.close', { id: calm.id });
  });

  it('reports a session whose shell dies, and keeps serving the others', async () => {
    const exits: { id: string; exitCode: number | null }[] = [];
    const off = worker.on('pty.exit', (e) => exits.push(e));
    const dying = await open(true);
    const other = await open(false);
    await worker.call('pty.input', { id: dying.id, data: 'kill -9 $$\r' });
    await waitFor(() => exits.some((e) => e.id === dying.id));
    expect((await worker.call('pty.run', { id: other.id, command: 'echo alive' })).output).toBe('alive\n');
    expect((await worker.call('pty.list', {})).find((s) => s.id === dying.id)?.exited).toBe(true);
    await expect(worker.call('pty.run', { id: dying.id, command: 'true' })).rejects.toMatchObject({ code: 'CONFLICT' });
    off();
    await worker.call('pty.close', { id: dying.id });
    await worker.call('pty.close', { id: other.id });
    expect(worker.status().state).toBe('ready');
  });

  it('says how limits are enforced here', async () => {
    const e = await worker.call('pty.enforcement', {});
    expect(e.sandboxOk).toBe(true);
    expect(Object.keys(e.limits).sort()).toEqual([
      'cpuSeconds',
      'fileSizeMb',
      'memoryMb',
      'openFiles',
      'processes',
      'tmpMb',
      'wallSeconds',
      'workspaceMb',
    ]);
    expect(e.network).toMatch(/loopback/);
  });
});
