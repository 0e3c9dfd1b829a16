/**
 * The checkpoints under a folder (the lab's models folder, a run's checkpoints): every folder holding a
 * manifest.json (a t1 checkpoint) or a model.onnx (an external export), searched a few levels deep. Broken
 * checkpoints are listed with their error rather than hidden; folders left by interrupted saves are
 * reported apart, and `recoverPartialSaves` cleans up after saves whose process is gone.
 */
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CheckpointError } from './errors';
import { MANIFEST_FILE } from './manifest';
import { inspectCheckpoint, summarizeExternal, unreadSummary, type CheckpointSummary } from './summary';
import { isHfCheckpoint } from '../hf/hf-checkpoint';
import { summarizeHf } from '../hf/hf-summary';
import { processAlive } from '../../util/process-alive';

const PARTIAL = /^\.(.+)\.(partial|replaced)-(\d+)-[0-9a-f]+$/;

export interface CheckpointListing {
  checkpoints: CheckpointSummary[];
  /** Hidden folders of saves that did not finish (or are still running), with the saving process id. */
  partial: PartialSave[];
}

export interface PartialSave {
  path: string;
  /** The checkpoint folder the save was writing to. */
  target: string;
  /** 'partial': the new checkpoint being written; 'replaced': the old one, moved aside by an overwriting save. */
  kind: 'partial' | 'replaced';
  pid: number;
  /** Whether the saving process still runs (its save may be in progress: leave it alone). */
  running: boolean;
}

export interface ListOptions {
  /** How many folder levels below `root` to search (default 4: root/run/checkpoints/step). */
  maxDepth?: number;
  /** Check every file's sha256 (default false: listing stays fast). */
  verify?: boolean;
}

export function listCheckpoints(root: string, options: ListOptions = {}): CheckpointListing {
  const listing: CheckpointListing = { checkpoints: [], partial: [] };
  const base = resolve(root);
  if (!existsSync(base)) return listing;
  const maxDepth = options.maxDepth ?? 4;
  const walk = (dir: string, depth: number) => {
    if (existsSync(join(dir, MANIFEST_FILE))) {
      listing.checkpoints.push(summarize(dir, options.verify ?? false));
      return;
    }
    if (isHfCheckpoint(dir)) {
      listing.checkpoints.push(summarizeHf(dir, { tokenizer: false }));
      return;
    }
    if (existsSync(join(dir, 'model.onnx'))) {
      listing.checkpoints.push(summarizeExternal(dir));
      return;
    }
    if (depth >= maxDepth) return;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      let isDir: boolean;
      try {
        isDir = statSync(path).isDirectory();
      } catch {
        continue;
      }
      if (!isDir) continue;
      const partial = PARTIAL.exec(name);
      if (partial) {
        const pid = Number(partial[3]);
        listing.partial.push({
          path,
          target: join(dir, partial[1]!),
          kind: partial[2] as PartialSave['kind'],
          pid,
          running: processAlive(pid),
        });
        continue;
      }
      if (name.startsWith('.') || name === 'node_modules') continue;
      walk(path, depth + 1);
    }
  };
  walk(base, 0);
  return listing;
}

/**
 * Clean up after saves whose process is gone (call it before resuming from a folder): a half-written
 * checkpoint is deleted; an old checkpoint that an overwriting save had moved aside is put back when the
 * save never published its replacement (so `latest` is never lost), and deleted when it did.
 */
export function recoverPartialSaves(
  root: string,
  options: Pick<ListOptions, 'maxDepth'> = {},
): { removed: string[]; restored: string[] } {
  const result = { removed: [] as string[], restored: [] as string[] };
  const partial = listCheckpoints(root, options).partial.filter((p) => !p.running);
  // Restore first: a replaced folder goes back only where no checkpoint took its place.
  for (const p of partial.filter((x) => x.kind === 'replaced')) {
    if (!existsSync(p.target) && existsSync(dirname(p.target))) {
      renameSync(p.path, p.target);
      result.restored.push(p.target);
    } else {
      rmSync(p.path, { recursive: true, force: true });
      result.removed.push(p.path);
    }
  }
  for (const p of partial.filter((x) => x.kind === 'partial')) {
    rmSync(p.path, { recursive: true, force: true });
    result.removed.push(p.path);
  }
  return result;
}

function summarize(dir: string, verify: boolean): CheckpointSummary {
  try {
    return inspectCheckpoint(dir, { verify, tokenizer: false, tensors: false });
  } catch (error) {
    if (!(error instanceof CheckpointError)) throw error;
    return unreadSummary(dir, 't1', { code: error.code, message: error.message });
  }
}
