/**
 * Temporary folders that name the process that owns them (`t1lab-<kind>-<pid>-XXXXXX` in the system temp
 * dir), so that what a killed process left behind (an episode's workspace copy, a verifier snapshot) can
 * be told apart from what a live one is using, and swept.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from './process-alive';

const OWNED = /^t1lab-[a-z0-9]+(?:-[a-z0-9]+)*?-(\d+)-[A-Za-z0-9]{6}$/;

function prefix(kind: string, parent?: string): string {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(kind))
    throw new Error(`temp dir kind '${kind}': lower-case words joined by '-'`);
  return join(parent ?? tmpdir(), `t1lab-${kind}-${process.pid}-`);
}

export function makeOwnedTempDir(kind: string, parent?: string): Promise<string> {
  return mkdtemp(prefix(kind, parent));
}

export function makeOwnedTempDirSync(kind: string, parent?: string): string {
  return mkdtempSync(prefix(kind, parent));
}

/** The pid a folder name says owns it, or null when the name is not one of ours. */
export function tempDirOwner(name: string): number | null {
  const match = OWNED.exec(name);
  return match ? Number(match[1]) : null;
}

/**
 * Remove the lab's temporary folders whose owning process is gone. A reused pid keeps its folders (the
 * safe direction). Returns what was removed.
 */
export function sweepOrphanedTempDirs(parent: string = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = tempDirOwner(name);
    if (pid === null || processAlive(pid)) continue;
    const path = join(parent, name);
    try {
      rmSync(path, { recursive: true, force: true, maxRetries: 2 });
      removed.push(path);
    } catch {
      // Still busy or not ours to remove: leave it for the next sweep.
    }
  }
  return removed;
}
