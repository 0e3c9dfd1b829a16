/**
 * Paths inside a task are relative POSIX paths that stay inside the task. Anything else (`../`, absolute
 * paths, backslashes, empty or `.` segments, NUL) is refused with the reason, in folders and packs alike.
 */

/** Why `path` is not an acceptable task-relative path, or null when it is. */
export function taskPathProblem(path: string): string | null {
  if (path.length === 0) return 'empty path';
  if (path.length > 4096) return 'path longer than 4096 characters';
  if (path.includes('\0')) return 'path contains a NUL byte';
  if (path.includes('\\')) return `'${path}' contains a backslash; use '/' between folders`;
  if (path.startsWith('/')) return `'${path}' is absolute; paths must be relative to the task folder`;
  if (/^[A-Za-z]:/.test(path)) return `'${path}' is a drive path; paths must be relative to the task folder`;
  const segments = path.split('/');
  for (const s of segments) {
    if (s === '..') return `'${path}' escapes the task folder ('..')`;
    if (s === '' || s === '.') return `'${path}' has an empty or '.' segment`;
    if (s.length > 255) return `'${path}' has a segment longer than 255 characters`;
  }
  return null;
}

/** Task ids are folder names: letters, digits, `.`, `_`, `-`; no leading dot. */
export const TASK_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function taskIdProblem(id: string): string | null {
  return TASK_ID_PATTERN.test(id)
    ? null
    : `'${id}' is not a valid task id (letters, digits, '.', '_', '-'; at most 128; no leading dot)`;
}

/** Is `path` equal to `dir` or inside it (both POSIX, normalized)? */
export function isWithin(path: string, dir: string): boolean {
  if (dir === '/') return path.startsWith('/');
  return path === dir || path.startsWith(`${dir}/`);
}
