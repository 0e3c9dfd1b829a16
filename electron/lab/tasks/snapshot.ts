/**
 * The verifier works on a snapshot of the agent's final workspace, taken when verification starts: a
 * process the agent left behind cannot change what is verified, the agent's folder is left as it was, and
 * verifying twice gives the same answer. The copy never follows a symlink on the host; symlinks that
 * would resolve, inside the verifier's sandbox, into its /tests or /logs (or /proc, or an ancestor of
 * them such as `/`) are left out and reported: they are the way to make a test compare a file with itself.
 */
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  readdir,
  readlink,
  realpath,
  rm,
  symlink,
  utimes,
  constants,
} from 'node:fs/promises';
import { join, posix } from 'node:path';
import { isWithin } from './paths';

/** Sandbox paths a workspace symlink may not reach (nor any folder above them). */
export const VERIFIER_PRIVATE_PATHS = ['/tests', '/logs', '/solution', '/environment', '/proc', '/dev/fd'];
const MAX_LINK_HOPS = 40;

export interface SnapshotReport {
  files: number;
  bytes: number;
  /** What was left out and why, in words (also shown in the verifier's notes). */
  notes: string[];
}

export async function snapshotWorkspace(source: string, dest: string, workdir: string): Promise<SnapshotReport> {
  const root = await realpath(source);
  const report: SnapshotReport = { files: 0, bytes: 0, notes: [] };

  /** Where a symlink at sandbox path `at` with `target` ends up, following links that stay in the workspace. */
  const resolveInSandbox = async (at: string, target: string): Promise<string | null> => {
    const pending = (target.startsWith('/') ? target : posix.join(posix.dirname(at), target)).split('/');
    let resolved = '/';
    let hops = 0;
    while (pending.length) {
      const part = pending.shift() as string;
      if (part === '' || part === '.') continue;
      if (part === '..') {
        resolved = posix.dirname(resolved);
        continue;
      }
      const next = posix.join(resolved, part);
      if (isWithin(next, workdir) && next !== workdir) {
        const host = join(root, next.slice(workdir.length + 1));
        const info = await lstat(host).catch(() => null);
        if (info?.isSymbolicLink()) {
          if (++hops > MAX_LINK_HOPS) return null;
          const inner = await readlink(host);
          pending.unshift(...inner.split('/'));
          if (inner.startsWith('/')) resolved = '/';
          continue;
        }
      }
      resolved = next;
    }
    return resolved;
  };

  const forbidden = (path: string) => VERIFIER_PRIVATE_PATHS.some((p) => isWithin(path, p) || isWithin(p, path));

  const walk = async (src: string, dst: string, at: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(src, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EACCES') throw error;
      // The agent made a folder unreadable to itself; the lab's user owns it and can read it back.
      await chmod(src, 0o700);
      entries = await readdir(src, { withFileTypes: true });
    }
    for (const entry of entries) {
      const s = join(src, entry.name);
      const d = join(dst, entry.name);
      const inside = posix.join(at, entry.name);
      const info = await lstat(s);
      if (info.isDirectory()) {
        await mkdir(d);
        await walk(s, d, inside);
        await chmod(d, (info.mode & 0o7777) | 0o700);
      } else if (info.isFile()) {
        if ((info.mode & 0o400) === 0) await chmod(s, info.mode | 0o400);
        await copyFile(s, d, constants.COPYFILE_FICLONE);
        await chmod(d, info.mode & 0o7777);
        await utimes(d, info.atime, info.mtime);
        report.files++;
        report.bytes += info.size;
      } else if (info.isSymbolicLink()) {
        const target = await readlink(s);
        const end = await resolveInSandbox(inside, target);
        if (end === null)
          report.notes.push(`left out symlink ${inside} -> ${target}: more than ${MAX_LINK_HOPS} links deep`);
        else if (forbidden(end))
          report.notes.push(
            `left out symlink ${inside} -> ${target}: it reaches ${end}, which belongs to the verifier`,
          );
        else await symlink(target, d);
      } else {
        report.notes.push(`left out ${inside}: not a regular file, folder or symlink (FIFO, socket or device)`);
      }
    }
  };

  await mkdir(dest, { recursive: true });
  await walk(root, dest, workdir);
  return report;
}

/** Remove a tree even when a sandboxed program left folders without write or execute permission. */
export async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'ENOTEMPTY') throw error;
  }
  const open = async (dir: string): Promise<void> => {
    await chmod(dir, 0o700).catch(() => {});
    for (const e of await readdir(dir, { withFileTypes: true }).catch(() => []))
      if (e.isDirectory()) await open(join(dir, e.name));
  };
  await open(path);
  await rm(path, { recursive: true, force: true });
}
