/**
 * Disk usage of a directory tree (allocated blocks, hard links counted once, symlinks not followed), walked
 * asynchronously so a host process serving many sandboxes never blocks on a big workspace.
 */
import { lstat, opendir } from 'node:fs/promises';
import { join } from 'node:path';

export interface TreeUsage {
  bytes: number;
  files: number;
  /** How long the walk took, ms: the monitor spaces its walks by this. */
  walkMs: number;
}

/** Stops early (returning what it has) once `stopAbove` bytes are counted. */
export async function treeUsage(root: string, stopAbove = Number.POSITIVE_INFINITY): Promise<TreeUsage> {
  const started = performance.now();
  const seen = new Set<string>();
  let bytes = 0;
  let files = 0;
  const stack = [root];
  while (stack.length && bytes <= stopAbove) {
    const dir = stack.pop() as string;
    let handle;
    try {
      handle = await opendir(dir, { bufferSize: 256 });
    } catch {
      continue;
    }
    try {
      for await (const entry of handle) {
        const path = join(dir, entry.name);
        let st;
        try {
          st = await lstat(path, { bigint: false });
        } catch {
          continue;
        }
        files++;
        if (st.nlink > 1) {
          const key = `${st.dev}:${st.ino}`;
          if (seen.has(key)) continue;
          seen.add(key);
        }
        bytes += st.blocks * 512;
        if (entry.isDirectory()) stack.push(path);
      }
    } catch {
      // directory vanished while we read it
    }
  }
  return { bytes, files, walkMs: performance.now() - started };
}
