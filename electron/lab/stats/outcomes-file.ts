/**
 * Reading and writing `outcomes.jsonl` (see domain/outcomes), and a model's lines as a run to compare.
 * A malformed line is an error naming the file, the line and the field: a committed file that cannot be
 * read must not be compared silently with lines left out.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { LabError } from '../../ipc/common/errors';
import { OutcomeLine } from '../../domain/outcomes';
import type { RunOutcomes } from './compare';

export function writeOutcomes(file: string, lines: readonly OutcomeLine[]): void {
  writeFileSync(file, lines.map((l) => JSON.stringify(OutcomeLine.parse(l))).join('\n') + (lines.length ? '\n' : ''));
}

export function readOutcomes(file: string): OutcomeLine[] {
  if (!existsSync(file)) throw new LabError('NOT_FOUND', `${file}: no such outcomes file`);
  const out: OutcomeLine[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (error) {
        throw new LabError('INVALID_PARAMS', `${file}:${i + 1}: not JSON (${(error as Error).message})`);
      }
      const parsed = OutcomeLine.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const field = issue.path.join('.') || '(the line)';
        const value =
          issue.path.length && json && typeof json === 'object'
            ? JSON.stringify((json as Record<string, unknown>)[String(issue.path[0])])
            : JSON.stringify(json);
        throw new LabError(
          'INVALID_PARAMS',
          `${file}:${i + 1}: field '${field}' ${issue.message.toLowerCase()} (got ${value ?? 'nothing'})`,
        );
      }
      out.push(parsed.data);
    });
  return out;
}

/** `FILE#MODEL`: an outcomes file and the model to take from it; null for anything else (a run folder or id). */
export function parseOutcomesRef(ref: string): { file: string; model: string } | null {
  const at = ref.lastIndexOf('#');
  if (at <= 0 || at === ref.length - 1) return null;
  const file = ref.slice(0, at);
  return file.endsWith('.jsonl') || existsSync(file) ? { file, model: ref.slice(at + 1) } : null;
}

/** One model's lines of one suite as a run; `suite` may be left out when the file holds one suite. */
export function outcomesRun(file: string, model: string, suite?: string): RunOutcomes {
  const lines = readOutcomes(file);
  const suites = [...new Set(lines.map((l) => l.suite))].sort();
  if (suite !== undefined && !suites.includes(suite))
    throw new LabError('NOT_FOUND', `${file}: no suite '${suite}' (it holds ${suites.join(', ') || 'no line'})`);
  if (suite === undefined && suites.length > 1)
    throw new LabError(
      'INVALID_PARAMS',
      `${file} holds several suites (${suites.join(', ')}): choose one with --suite`,
    );
  const chosen = suite ?? suites[0];
  const ofSuite = lines.filter((l) => l.suite === chosen);
  const models = [...new Set(ofSuite.map((l) => l.model))].sort();
  if (!models.includes(model))
    throw new LabError(
      'NOT_FOUND',
      `${file}: no model '${model}' in suite '${chosen}' (models: ${models.join(', ') || 'none'})`,
    );
  return {
    run: `${model} (${chosen})`,
    episodes: ofSuite
      .filter((l) => l.model === model)
      .map((l) => ({
        taskId: l.task,
        category: l.family,
        attempt: l.attempt,
        resolved: l.resolved,
        reward: { dense: l.dense },
      })),
  };
}
