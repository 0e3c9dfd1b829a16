/**
 * Red team, the lab reading the workspace afterwards: a sandbox plants symlinks, FIFOs and hard-link
 * attempts so that the lab, copying or reading workspace files later, would read or write outside it.
 * The lab's workspace helpers must refuse, skip, never hang, and leave the host unchanged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyWorkspace,
  readWorkspaceFile,
  WorkspacePathError,
  writeWorkspaceFile,
} from '../../../native/sandbox/index';
import { plantCanary, type Canary } from '../../helpers/host-canary';
import { backend, leftoverSandboxes, specFor } from '../../helpers/sandbox';
import { makeTempDir } from '../../helpers/tmp';

let canary: Canary;
let before: string;
const ws = makeTempDir('t1lab-redteam-links-');
const dest = makeTempDir('t1lab-redteam-copy-');

beforeAll(async () => {
  canary = plantCanary();
  before = canary.snapshot();
  // The sandbox sees the canary's host path as nothing, but a symlink is only a string: it plants them anyway.
  const r = await backend.run(specFor(ws.path), [
    '/bin/sh',
    '-c',
    `
    echo legit > /app/result.txt
    mkdir -p /app/logs
    echo log > /app/logs/run.log
    ln -s ${join(canary.dir, 'secret.txt')} /app/answer.txt
    ln -s / /app/rootfs
    ln -s ${canary.dir} /app/logs/evil-dir
    ln -s /etc/passwd /app/logs/passwd
    mkfifo /app/pipe
    ln /usr/bin/su /app/su-hardlink 2>/dev/null || echo "hardlink refused"
    python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.bind('/app/sock')"
    true`,
  ]);
  expect(r.stdout).toContain('hardlink refused');
});
afterAll(() => {
  canary.remove();
  ws.remove();
  dest.remove();
});

function hostUnchanged(): void {
  expect(canary.snapshot(), 'the host changed').toBe(before);
  expect(leftoverSandboxes()).toEqual([]);
}

describe('red team: what the sandbox leaves in its workspace', () => {
  it('symlink-read: reading a planted symlink is refused, the target is never read', async () => {
    await expect(readWorkspaceFile(ws.path, 'answer.txt')).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(readWorkspaceFile(ws.path, 'rootfs/etc/passwd')).rejects.toThrow(/rootfs is a symlink/);
    await expect(readWorkspaceFile(ws.path, 'logs/evil-dir/secret.txt')).rejects.toThrow(/symlink/);
    await expect(readWorkspaceFile(ws.path, '../../etc/passwd')).rejects.toThrow(/not a path inside the workspace/);
    await expect(readWorkspaceFile(ws.path, '/etc/passwd')).rejects.toThrow(/not a path inside the workspace/);
    expect((await readWorkspaceFile(ws.path, 'result.txt')).data.toString()).toBe('legit\n');
    hostUnchanged();
  });

  it('fifo-read: reading a planted FIFO fails at once instead of hanging the lab', async () => {
    const started = Date.now();
    await expect(readWorkspaceFile(ws.path, 'pipe')).rejects.toThrow(/not a regular file/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('symlink-write: writing through a planted symlink (file or folder) is refused, the host file untouched', async () => {
    await expect(writeWorkspaceFile(ws.path, 'answer.txt', 'overwritten')).rejects.toThrow(/symlink/);
    await expect(writeWorkspaceFile(ws.path, 'logs/evil-dir/new.txt', 'planted')).rejects.toThrow(/symlink/);
    await expect(writeWorkspaceFile(ws.path, 'pipe', 'x')).rejects.toThrow(/not a regular file/);
    await writeWorkspaceFile(ws.path, 'inputs/task.txt', 'ok');
    expect(readFileSync(join(ws.path, 'inputs/task.txt'), 'utf8')).toBe('ok');
    expect(existsSync(join(canary.dir, 'new.txt'))).toBe(false);
    hostUnchanged();
  });

  it('symlink-copy: copying the workspace takes regular files only and says what it skipped', async () => {
    const report = await copyWorkspace(ws.path, join(dest.path, 'copy'));
    expect(readFileSync(join(dest.path, 'copy', 'result.txt'), 'utf8')).toBe('legit\n');
    expect(readFileSync(join(dest.path, 'copy', 'logs', 'run.log'), 'utf8')).toBe('log\n');
    const skipped = Object.fromEntries(report.skipped.map((s) => [s.path, s.reason]));
    expect(skipped).toMatchObject({
      'answer.txt': expect.stringContaining('symlink'),
      rootfs: expect.stringContaining('symlink'),
      'logs/evil-dir': expect.stringContaining('symlink'),
      'logs/passwd': expect.stringContaining('symlink'),
      pipe: expect.stringContaining('not a regular file'),
      sock: expect.stringContaining('not a regular file'),
    });
    expect(existsSync(join(dest.path, 'copy', 'answer.txt'))).toBe(false);
    expect(JSON.stringify(report)).not.toContain(canary.secret);
    expect(report.files).toBe(3); // result.txt, logs/run.log, inputs/task.txt
    hostUnchanged();
  });
});
