/**
 * `tasks synth` as a service: synthesize, optionally audit every task (cached by content hash), write
 * only what passes, and report the mix, the rejections by verdict and the distinct counts.
 */
import { createWriteStream } from 'node:fs';
import { rename } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import type { AuditVerdict } from '../../../domain/tasks';
import { auditTask, type AuditOptions } from '../audit';
import type { AuditCache } from './audit-cache';
import { synthesize, type SynthOptions, type SynthTask } from './generate';
import { ranked } from './corpus-mix';

export interface SynthSummary {
  pack: string;
  count: number;
  families: Record<string, number>;
  categories: Record<string, number>;
  difficulties: Record<string, number>;
  rejected: Record<string, number>;
  /** Distinct content hashes: whole tasks, instructions, solutions, environment file trees. */
  distinct: { tasks: number; instructions: number; solutions: number; fileTrees: number };
  /** Audit ok-rate per family (only with --audit): {family: {audited, ok}}. */
  audit: Record<string, { audited: number; ok: number; cached: number }> | null;
  durationMs: number;
}

export interface SynthRunOptions extends SynthOptions {
  out: string;
  audit?: {
    cache: AuditCache;
    concurrency: number;
    options?: AuditOptions;
    /** Called as audits finish: done (tasks decided), needed (the count), the latest verdict. */
    onProgress?: (decided: number, total: number, detail: string) => void;
    /** Give up after this many candidates (default 2 * count + 20). */
    maxCandidates?: number;
  };
}

/** Candidates decided per round of audits: enough to keep `concurrency` sandboxes busy. */
const ROUND_FACTOR = 4;

export async function runSynth(options: SynthRunOptions): Promise<SynthSummary> {
  const started = performance.now();
  const rejected = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const stream = synthesize({ ...options, count: options.audit ? Number.MAX_SAFE_INTEGER : options.count }, (r) =>
    bump(rejected, r.verdict),
  );
  const kept: SynthTask[] = [];
  const auditStats: FamilyAuditStats = new Map();

  if (!options.audit) {
    for (const t of stream) kept.push(t);
  } else {
    const { cache, concurrency } = options.audit;
    const maxCandidates = options.audit.maxCandidates ?? options.count * 2 + 20;
    let candidates = 0;
    let exhausted = false;
    while (kept.length < options.count && !exhausted && candidates < maxCandidates) {
      // A round: the next candidates, in order; verdicts come from the cache or from audits run `concurrency` at a time.
      const round: SynthTask[] = [];
      const want = Math.min(
        Math.max(options.count - kept.length, concurrency * ROUND_FACTOR),
        maxCandidates - candidates,
      );
      while (round.length < want) {
        const n = stream.next();
        if (n.done) {
          exhausted = true;
          break;
        }
        round.push(n.value);
      }
      candidates += round.length;
      const verdicts = await auditRound(
        round,
        cache,
        concurrency,
        auditStats,
        options.audit.options,
        (t, verdict, okSoFar) =>
          options.audit!.onProgress?.(
            Math.min(kept.length + okSoFar, options.count),
            options.count,
            `${t.id}: ${verdict}`,
          ),
      );
      round.forEach((t, i) => {
        if (verdicts[i] !== 'ok') bump(rejected, verdicts[i]!);
        else if (kept.length < options.count) kept.push(t);
      });
    }
  }

  await writeLines(
    options.out,
    kept.map((t) => t.line),
  );
  return summarize(options.out, kept, rejected, options.audit ? auditStats : null, started);
}

export type FamilyAuditStats = Map<string, { audited: number; ok: number; cached: number }>;

/** Audit candidates `concurrency` at a time (verdicts from the cache when known); verdicts in candidate order. */
export async function auditRound(
  round: readonly SynthTask[],
  cache: AuditCache,
  concurrency: number,
  stats: FamilyAuditStats,
  auditOptions: AuditOptions | undefined,
  onVerdict?: (task: SynthTask, verdict: AuditVerdict, okSoFar: number) => void,
): Promise<AuditVerdict[]> {
  const verdicts: AuditVerdict[] = new Array(round.length);
  let nextIndex = 0;
  let ok = 0;
  const worker = async () => {
    while (nextIndex < round.length) {
      const i = nextIndex++;
      const t = round[i]!;
      const stat = stats.get(t.family) ?? { audited: 0, ok: 0, cached: 0 };
      stats.set(t.family, stat);
      const hit = await cache.get(t.hashes.content);
      let verdict: AuditVerdict;
      if (hit) {
        verdict = hit.verdict;
        stat.cached++;
      } else {
        const outcome = await auditTask(t.task, auditOptions);
        // The audit calls a task `ok` when only guard assertions pass without work (issue 10: a guard is a
        // warning). A synthesized task is held to more: every assertion must fail on the untouched
        // workspace, or the dense reward pays for doing nothing. Such tasks are rejected as trivial.
        const guards = outcome.result.guards ?? [];
        verdict = outcome.result.verdict === 'ok' && guards.length ? 'trivial' : outcome.result.verdict;
        const reason =
          verdict === outcome.result.verdict
            ? outcome.result.reason
            : `guard assertion(s) pass without work: ${guards.join(', ')}`;
        await cache.put({ hash: t.hashes.content, id: t.id, verdict, reason });
      }
      stat.audited++;
      if (verdict === 'ok') {
        stat.ok++;
        ok++;
      }
      verdicts[i] = verdict;
      onVerdict?.(t, verdict, ok);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, round.length)) }, worker));
  return verdicts;
}

/** Write pack lines under a temporary name first: a killed run never leaves half a pack under the real name. */
export async function writeLines(path: string, lines: readonly string[]): Promise<void> {
  const tmp = `${path}.partial`;
  const out = createWriteStream(tmp, { encoding: 'utf8' });
  for (const line of lines) if (!out.write(`${line}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  out.end();
  await finished(out);
  await rename(tmp, path);
}

export function summarize(
  pack: string,
  kept: readonly SynthTask[],
  rejected: Map<string, number>,
  auditStats: FamilyAuditStats | null,
  started: number,
): SynthSummary {
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const tally = (f: (t: SynthTask) => string) => {
    const m = new Map<string, number>();
    for (const t of kept) bump(m, f(t));
    return ranked(m);
  };
  const distinct = (f: (t: SynthTask) => string) => new Set(kept.map(f)).size;
  return {
    pack,
    count: kept.length,
    families: tally((t) => t.family),
    categories: tally((t) => t.category),
    difficulties: tally((t) => t.difficulty),
    rejected: ranked(rejected),
    distinct: {
      tasks: distinct((t) => t.hashes.content),
      instructions: distinct((t) => t.hashes.instruction),
      solutions: distinct((t) => t.hashes.solution),
      fileTrees: distinct((t) => t.hashes.fileTree),
    },
    audit: auditStats ? Object.fromEntries([...auditStats].sort((a, b) => (a[0] < b[0] ? -1 : 1))) : null,
    durationMs: Math.round(performance.now() - started),
  };
}
