/** Corpus tools: MinHash similarity, overlap with a planted near-copy, stats, rebalancing, the audit cache. */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_FAMILIES } from '../../../tasks/families';
import { parsePackLine, packLineOf } from '../../../electron/lab/tasks/pack';
import type { Task } from '../../../electron/lab/tasks/model';
import { AuditCache } from '../../../electron/lab/tasks/synth/audit-cache';
import { chooseFamilies, synthesize } from '../../../electron/lab/tasks/synth/generate';
import { estimatedJaccard, minhash, wordShingles } from '../../../electron/lab/tasks/synth/minhash';
import { measureOverlap, taskSignature } from '../../../electron/lab/tasks/synth/overlap';
import { quotas, rebalance } from '../../../electron/lab/tasks/synth/rebalance';
import { corpusStats } from '../../../electron/lab/tasks/synth/corpus-mix';
import { TB2_MIX } from '../../../electron/lab/tasks/synth/targets';
import { makeTempDir } from '../../helpers/tmp';

const set = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `s${from + i}`);

describe('MinHash', () => {
  it('estimates Jaccard similarity', () => {
    expect(estimatedJaccard(minhash(set(0, 100)), minhash(set(0, 100)))).toBe(1);
    expect(estimatedJaccard(minhash(set(0, 100)), minhash(set(1000, 1100)))).toBeLessThan(0.05);
    // |A ∩ B| = 50, |A ∪ B| = 150: J = 1/3.
    const j = estimatedJaccard(minhash(set(0, 100)), minhash(set(50, 150)));
    expect(j).toBeGreaterThan(0.2);
    expect(j).toBeLessThan(0.47);
    expect(estimatedJaccard(minhash([]), minhash(set(0, 3)))).toBe(0);
    expect([...wordShingles('Count the ERROR lines, please.')]).toEqual([
      'count the error',
      'the error lines',
      'error lines please.',
    ]);
  });
});

function corpus(split: 'train' | 'eval', count: number, seed = 1): Task[] {
  return [...synthesize({ count, seed, split, families: chooseFamilies(ALL_FAMILIES, null, split) })].map(
    (t) => t.task,
  );
}

/** An eval task copied with a new id and one word of its instruction changed. */
function nearCopy(task: Task): Task {
  const line = JSON.parse(packLineOf(task)) as { id: string; files: { path: string; text?: string }[] };
  line.id = `${task.id}-copy`;
  const ins = line.files.find((f) => f.path === 'instruction.md')!;
  ins.text = ins.text!.replace(/\bthe\b/, 'a');
  return parsePackLine('copy.jsonl', 1, JSON.stringify(line)).task!;
}

describe('overlap', () => {
  const held = ALL_FAMILIES.filter((f) => f.heldOut);
  const train = corpus('train', 300);
  const ood = [...synthesize({ count: 30, seed: 2, split: 'eval', families: held })].map((t) => t.task);

  it('finds a training corpus disjoint from held-out families', () => {
    const report = measureOverlap(train.map(taskSignature), ood.map(taskSignature));
    expect(report.pairs).toBe(300 * 30);
    expect(report.verdict).toBe('disjoint');
    expect(report.maxSimilarity).toBeLessThan(0.8);
  });

  it('flags a planted near-copy on every kind', () => {
    const planted = nearCopy(ood[3]!);
    const report = measureOverlap([...train, planted].map(taskSignature), ood.map(taskSignature));
    expect(report.verdict).toBe('overlap');
    const hits = report.flagged.filter((f) => f.train === planted.id && f.eval === ood[3]!.id);
    expect(hits.map((h) => h.kind).sort()).toEqual(['files', 'instruction', 'solution']);
    expect(hits.find((h) => h.kind === 'instruction')!.similarity).toBeGreaterThan(0.85);
    // Only the planted task overlaps (it may also resemble siblings of its original from the same family).
    expect(report.flagged.filter((f) => f.train !== planted.id)).toEqual([]);
  });
});

describe('stats and rebalance', () => {
  const tasks = corpus('eval', 400, 3);

  it('counts categories, difficulties and families; top5Share is the top five categories', () => {
    const s = corpusStats(tasks);
    expect(s.count).toBe(400);
    const cats = Object.values(s.categories);
    expect(cats.reduce((a, b) => a + b, 0)).toBe(400);
    expect(s.top5Share).toBeCloseTo(cats.slice(0, 5).reduce((a, b) => a + b, 0) / 400, 4);
    expect(Object.values(s.families).reduce((a, b) => a + b, 0)).toBe(400);
    expect(s.families['(none)']).toBeUndefined();
  });

  it('splits quotas by largest remainder, capped by what exists', () => {
    const q = quotas(
      { a: 1, b: 1, c: 2 },
      new Map([
        ['a', 100],
        ['b', 1],
        ['c', 100],
      ]),
      10,
    );
    expect(q.get('b')).toBe(1);
    expect([...q.values()].reduce((x, y) => x + y, 0)).toBe(10);
    expect(q.get('c')! > q.get('a')!).toBe(true);
  });

  it('meets the TB2 difficulty mix exactly when the source has enough of each, and flattens categories for uniform', () => {
    const s = corpusStats(tasks);
    const wantHard = Math.min(30, s.difficulties.hard ?? 0);
    const subset = rebalance(tasks, TB2_MIX, 89);
    const after = corpusStats(subset);
    expect(after.count).toBe(89);
    expect(after.difficulties.hard).toBe(wantHard);
    const cats = Object.keys(s.categories);
    const uniform = corpusStats(
      rebalance(
        tasks,
        { categories: Object.fromEntries(cats.map((c) => [c, 1])), difficulties: null },
        cats.length * 5,
      ),
    );
    expect(Object.values(uniform.categories).every((n) => n === 5)).toBe(true);
    expect(uniform.top5Share).toBeLessThan(s.top5Share);
  });
});

describe('the audit cache', () => {
  let tmp: { path: string; remove(): void };
  beforeAll(() => (tmp = makeTempDir('t1lab-audit-cache-')));
  afterAll(() => tmp.remove());

  it('keeps verdicts across instances, skips torn lines and never caches error verdicts', async () => {
    const file = join(tmp.path, 'cache.jsonl');
    const a = new AuditCache(file);
    await a.put({ hash: 'h1', id: 't1', verdict: 'ok', reason: '' });
    await a.put({ hash: 'h2', id: 't2', verdict: 'trivial', reason: 'x' });
    await a.put({ hash: 'h3', id: 't3', verdict: 'error', reason: 'no bwrap' });
    appendFileSync(file, '{"hash": "h4", "verd');
    const b = new AuditCache(file);
    expect((await b.get('h1'))?.verdict).toBe('ok');
    expect((await b.get('h2'))?.verdict).toBe('trivial');
    expect(await b.get('h3')).toBeNull();
    expect(await b.get('h4')).toBeNull();
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
  });
});
