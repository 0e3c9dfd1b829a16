/**
 * Disk usage of a directory tree (allocated blocks, hard links counted once, symlinks not followed), walked
 * asynchronously so a host process serving many sandboxes never blocks on a big workspace.
 */
import { lstatSync, readdirSync } from 'node:fs';
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

/**
 * The same count, synchronously, for a small tree: null once it has seen more than `maxEntries` entries
 * (walk those asynchronously instead). Saves the thread-pool round trips of `treeUsage` on the common
 * case, a fresh or small workspace, where they are most of the cost of starting a sandbox's walk.
 */
export function smallTreeUsage(root: string, stopAbove = Number.POSITIVE_INFINITY, maxEntries = 256): number | null {
  const seen = new Set<string>();
  let bytes = 0;
  let entries = 0;
  const stack = [root];
  while (stack.length && bytes <= stopAbove) {
    const dir = stack.pop() as string;
    let names;
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries += names.length;
    if (entries > maxEntries) return null;
    for (const entry of names) {
      const path = join(dir, entry.name);
      let st;
      try {
        st = lstatSync(path);
      } catch {
        continue;
      }
      if (st.nlink > 1) {
        const key = `${st.dev}:${st.ino}`;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      bytes += st.blocks * 512;
      if (entry.isDirectory()) stack.push(path);
    }
  }
  return bytes;
}
