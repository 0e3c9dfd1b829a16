/**
 * Content hashes of a task, id excluded: two tasks with the same hash are the same task under two names.
 * Also the parts the synth report counts as distinct: instruction, solution, file tree (environment).
 */
import { createHash } from 'node:crypto';
import type { TaskFile } from '../model';

function digest(parts: Iterable<string | Uint8Array>): string {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength));
    h.update('\0');
  }
  return h.digest('hex').slice(0, 32);
}

const byPath = (a: TaskFile, b: TaskFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

function filesDigest(files: readonly TaskFile[]): string {
  return digest([...files].sort(byPath).flatMap((f) => [f.path, f.executable ? 'x' : '-', f.data]));
}

export interface TaskHashes {
  /** Every file (path, mode, bytes). */
  content: string;
  instruction: string;
  solution: string;
  /** environment/ (files and set-up). */
  fileTree: string;
}

export function taskHashes(files: readonly TaskFile[]): TaskHashes {
  const one = (path: string) => digest([files.find((f) => f.path === path)?.data ?? new Uint8Array()]);
  return {
    content: filesDigest(files),
    instruction: one('instruction.md'),
    solution: one('solution/solve.sh'),
    fileTree: filesDigest(files.filter((f) => f.path.startsWith('environment/'))),
  };
}
