/**
 * Reading, writing and copying workspace files from the host without being led outside the workspace.
 * A sandbox controls its workspace: it can plant a symlink (`out.txt -> /etc/shadow`, `logs -> /`), a
 * FIFO that blocks a reader forever, or swap a directory for a symlink while the lab walks it. These
 * helpers never follow a symlink, open nothing but regular files and directories, and check after opening
 * (through /proc/self/fd) that what they hold really lies inside the workspace.
 * Node has no openat2(RESOLVE_BENEATH); this is the portable equivalent, written by hand for that reason.
 */
import { constants, promises as fsp, readlinkSync, realpathSync } from 'node:fs';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';

export class WorkspacePathError extends Error {
  override readonly name = 'WorkspacePathError';
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW, O_NONBLOCK, O_EXCL } = constants;

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Check a relative path and walk its parent directories without following symlinks. */
async function checkedPath(workspace: string, relPath: string): Promise<{ root: string; full: string }> {
  const root = realpathSync(workspace);
  const clean = normalize(relPath);
  if (isAbsolute(clean) || clean === '..' || clean.startsWith(`..${sep}`) || clean.includes('\0')) {
    throw new WorkspacePathError(`${relPath}: not a path inside the workspace`);
  }
  const parts = clean.split(sep).filter((p) => p && p !== '.');
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const st = await fsp.lstat(dir).catch(() => null);
    if (!st) break; // the rest does not exist yet (a write creates it)
    if (st.isSymbolicLink())
      throw new WorkspacePathError(`${relPath}: ${relative(root, dir)} is a symlink (not followed)`);
    if (!st.isDirectory()) throw new WorkspacePathError(`${relPath}: ${relative(root, dir)} is not a directory`);
  }
  return { root, full: join(root, ...parts) };
}

/** What an open fd really refers to must still lie inside the workspace (guards against swaps mid-walk). */
function assertFdInside(fd: number, root: string, relPath: string): void {
  const real = readlinkSync(`/proc/self/fd/${fd}`);
  if (!inside(root, real)) throw new WorkspacePathError(`${relPath}: resolves outside the workspace (${real})`);
}

/** Read a regular file of the workspace, at most `maxBytes` (the rest is reported, not read). */
export async function readWorkspaceFile(
  workspace: string,
  relPath: string,
  options: { maxBytes?: number } = {},
): Promise<{ data: Buffer; size: number; truncated: boolean }> {
  const { root, full } = await checkedPath(workspace, relPath);
  // O_NOFOLLOW refuses a symlink as the last component; O_NONBLOCK keeps a FIFO from blocking the open.
  const handle = await fsp.open(full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP') throw new WorkspacePathError(`${relPath}: is a symlink (not followed)`);
    throw error;
  });
  try {
    assertFdInside(handle.fd, root, relPath);
    const st = await handle.stat();
    if (!st.isFile()) throw new WorkspacePathError(`${relPath}: not a regular file`);
    const max = options.maxBytes ?? 16 * 1024 * 1024;
    const length = Math.min(st.size, max);
    const data = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await handle.read(data, read, length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { data: data.subarray(0, read), size: st.size, truncated: st.size > read };
  } finally {
    await handle.close();
  }
}

/**
 * Write a file into the workspace (e.g. task files before the sandbox starts). Missing parent
 * directories are created; a symlink anywhere on the path is refused.
 */
export async function writeWorkspaceFile(
  workspace: string,
  relPath: string,
  data: string | Uint8Array,
  options: { mode?: number; exclusive?: boolean } = {},
): Promise<void> {
  const { root, full } = await checkedPath(workspace, relPath);
  const parent = join(full, '..');
  await fsp.mkdir(parent, { recursive: true });
  const parentReal = realpathSync(parent);
  if (!inside(root, parentReal)) throw new WorkspacePathError(`${relPath}: its folder resolves outside the workspace`);
  const flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | (options.exclusive ? O_EXCL : O_TRUNC);
  const handle = await fsp.open(full, flags, options.mode ?? 0o644).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP') throw new WorkspacePathError(`${relPath}: is a symlink (not followed)`);
    if (error.code === 'ENXIO') throw new WorkspacePathError(`${relPath}: not a regular file`);
    throw error;
  });
  try {
    assertFdInside(handle.fd, root, relPath);
    if (!(await handle.stat()).isFile()) throw new WorkspacePathError(`${relPath}: not a regular file`);
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
}

export interface CopyReport {
  files: number;
  bytes: number;
  /** What was left out and why (symlinks, FIFOs, sockets, devices, files over the limit). */
  skipped: { path: string; reason: string }[];
}

/**
 * Copy a workspace tree to `dest` (e.g. into a run folder), regular files and directories only: symlinks
 * are recorded, never followed or recreated; FIFOs, sockets and devices are skipped.
 */
export async function copyWorkspace(
  workspace: string,
  dest: string,
  options: { maxBytes?: number } = {},
): Promise<CopyReport> {
  const root = realpathSync(workspace);
  const report: CopyReport = { files: 0, bytes: 0, skipped: [] };
  const budget = options.maxBytes ?? Number.POSITIVE_INFINITY;
  await fsp.mkdir(dest, { recursive: true });
  const walk = async (rel: string): Promise<void> => {
    const entries = await fsp.readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const childRel = rel ? join(rel, entry.name) : entry.name;
      const st = await fsp.lstat(join(root, childRel)).catch(() => null);
      if (!st) continue;
      if (st.isSymbolicLink()) {
        report.skipped.push({ path: childRel, reason: 'symlink (not followed)' });
      } else if (st.isDirectory()) {
        await fsp.mkdir(join(dest, childRel), { recursive: true });
        await walk(childRel);
      } else if (st.isFile()) {
        if (report.bytes + st.size > budget) {
          report.skipped.push({ path: childRel, reason: `over the copy budget of ${budget} bytes` });
          continue;
        }
        try {
          const { data } = await readWorkspaceFile(root, childRel, { maxBytes: Math.max(0, budget - report.bytes) });
          await fsp.writeFile(join(dest, childRel), data, { flag: 'wx' });
          report.files++;
          report.bytes += data.length;
        } catch (error) {
          report.skipped.push({ path: childRel, reason: (error as Error).message });
        }
      } else {
        report.skipped.push({ path: childRel, reason: 'not a regular file (FIFO, socket or device)' });
      }
    }
  };
  await walk('');
  return report;
}
