/**
 * Disjointness between a training corpus and an eval suite, measured three ways per pair of tasks:
 * - instruction: word 3-gram shingles of instruction.md;
 * - solution: the oracle's command sequence (typed commands, whitespace-normalised), as 2-grams of commands
 *   plus word 3-grams, so a reordered or lightly edited solution still matches;
 * - files: the environment's file tree and the verifier (paths, file lines, test lines, assertion runs).
 * Each kind is a MinHash signature; a pair is flagged when some kind reaches the threshold.
 */
import { fileText, type Task } from '../model';
import { solutionCommands } from '../solution';
import { estimatedJaccard, minhash, wordShingles } from './minhash';

export type OverlapKind = 'instruction' | 'solution' | 'files';
export const OVERLAP_KINDS: OverlapKind[] = ['instruction', 'solution', 'files'];

/** Default similarity at or above which a pair counts as overlap. */
export const DEFAULT_OVERLAP_THRESHOLD = 0.8;
/** How many flagged pairs the report lists (the count is always exact). */
const MAX_FLAGGED = 200;

export interface TaskSignature {
  id: string;
  sigs: Record<OverlapKind, Uint32Array | null>;
}

function solutionShingles(task: Task): Set<string> {
  const cmds = solutionCommands(task).map((c) => c.replace(/\s+/g, ' ').trim());
  const out = new Set<string>();
  for (let i = 0; i < cmds.length; i++) out.add(i + 1 < cmds.length ? `${cmds[i]}\n${cmds[i + 1]}` : cmds[i]!);
  for (const s of wordShingles(cmds.join(' ; '))) out.add(`w:${s}`);
  return out;
}

function fileShingles(task: Task): Set<string> {
  const out = new Set<string>();
  for (const f of task.files) {
    const inEnv = f.path.startsWith('environment/');
    const inTests = f.path.startsWith('tests/');
    if (!inEnv && !inTests) continue;
    out.add(`p:${f.path.replace(/^environment\/files\//, '')}`);
    const text = fileText(task, f.path);
    if (text === null) continue;
    for (const line of text.split('\n')) {
      const l = line.trim();
      if (l.length > 3) out.add(`l:${l}`);
    }
  }
  for (const a of task.verifier.assertions) out.add(`a:${a.run.replace(/\s+/g, ' ').trim()}`);
  return out;
}

export function taskSignature(task: Task): TaskSignature {
  return {
    id: task.id,
    sigs: {
      instruction: minhash(wordShingles(task.instruction)),
      solution: minhash(solutionShingles(task)),
      files: minhash(fileShingles(task)),
    },
  };
}

export interface OverlapReport {
  pairs: number;
  maxSimilarity: number;
  /** The pair and kind of the maximum (null when nothing was compared). */
  max: { train: string; eval: string; kind: OverlapKind } | null;
  flagged: { train: string; eval: string; similarity: number; kind: OverlapKind }[];
  flaggedCount: number;
  threshold: number;
  verdict: 'disjoint' | 'overlap';
}

/** Compare every train task with every eval task; `onProgress(done, total)` per eval task. */
export function measureOverlap(
  train: readonly TaskSignature[],
  evals: readonly TaskSignature[],
  threshold = DEFAULT_OVERLAP_THRESHOLD,
  onProgress?: (done: number, total: number) => void,
): OverlapReport {
  let max = 0;
  let maxAt: OverlapReport['max'] = null;
  const flagged: OverlapReport['flagged'] = [];
  let flaggedCount = 0;
  evals.forEach((e, ei) => {
    for (const t of train) {
      for (const kind of OVERLAP_KINDS) {
        const s = estimatedJaccard(t.sigs[kind], e.sigs[kind]);
        if (s > max) {
          max = s;
          maxAt = { train: t.id, eval: e.id, kind };
        }
        if (s >= threshold) {
          flaggedCount++;
          if (flagged.length < MAX_FLAGGED) flagged.push({ train: t.id, eval: e.id, similarity: s, kind });
        }
      }
    }
    onProgress?.(ei + 1, evals.length);
  });
  flagged.sort((a, b) => b.similarity - a.similarity || (a.eval < b.eval ? -1 : a.eval > b.eval ? 1 : 0));
  return {
    pairs: train.length * evals.length,
    maxSimilarity: max,
    max: maxAt,
    flagged,
    flaggedCount,
    threshold,
    verdict: flaggedCount ? 'overlap' : 'disjoint',
  };
}
