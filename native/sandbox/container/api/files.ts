/**
 * Files between this machine and a container on any host: a host folder goes in as a tar stream
 * (`putArchive`) before the container starts, and a writable one comes back (`getArchive`) after it
 * stopped. This is how the API backend gives a container its mounts (the workspace, /tests, /logs/verifier,
 * the shell's rc file) on an engine that does not share this machine's file system. The tar work is the
 * system's `tar` (GNU tar, as on every Linux the lab runs on).
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

function tarProcess(args: string[], stdin: 'pipe' | 'ignore') {
  const child = spawn('tar', args, { stdio: [stdin, stdin === 'pipe' ? 'ignore' : 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`tar ${args[0]} failed (exit ${code}): ${stderr.trim()}`)),
    );
  });
  return { child, done };
}

/**
 * A tar stream of `hostDir`'s content placed at `containerPath` (an absolute path; entries are named
 * relative to `/`, so the archive goes to `/`). Owners and modes are kept, as a bind mount shows them.
 */
export function packFolder(hostDir: string, containerPath: string): { stream: Readable; done: Promise<void> } {
  const target = containerPath.replace(/^\/+|\/+$/g, '');
  const transform = target ? `s,^\\.,${target.replace(/,/g, '\\,')},` : 's,^\\./,,';
  const { child, done } = tarProcess(
    ['-c', '-C', hostDir, '--numeric-owner', `--transform=${transform}`, '.'],
    'ignore',
  );
  return { stream: child.stdout as Readable, done };
}

/**
 * Replace `hostDir`'s content with a `getArchive` stream of a container folder (its top entry, the folder
 * itself, dropped): what the container deleted is gone here too, as with a bind mount.
 */
export async function unpackInto(archive: NodeJS.ReadableStream, hostDir: string): Promise<void> {
  await mkdir(hostDir, { recursive: true });
  for (const entry of await readdir(hostDir)) await rm(join(hostDir, entry), { recursive: true, force: true });
  const { child, done } = tarProcess(
    ['-x', '-C', hostDir, '--strip-components=1', '--delay-directory-restore'],
    'pipe',
  );
  await Promise.all([pipeline(archive, child.stdin!), done]);
}
