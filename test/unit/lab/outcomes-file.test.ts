import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { OutcomeLine } from '../../../electron/domain/outcomes';
import { compareRuns, type ComparableEpisode } from '../../../electron/lab/stats/compare';
import { outcomesRun, parseOutcomesRef, readOutcomes, writeOutcomes } from '../../../electron/lab/stats/outcomes-file';

const dir = mkdtempSync(join(tmpdir(), 't1lab-outcomes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Two models on 6 tasks x 3 attempts, and a second suite the comparison must leave out. */
function lines(): OutcomeLine[] {
  const out: OutcomeLine[] = [];
  for (const model of ['sft', 'rl-dense']) {
    for (let t = 0; t < 6; t++) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const resolved = model === 'sft' ? attempt < t % 2 : attempt < (t % 3) + 1;
        out.push({
          suite: 'id-nano',
          model,
          task: `task-${t}`,
          family: t < 3 ? 'write-file' : 'csv-group-sum',
          attempt,
          resolved,
          dense: resolved ? 3 : t / 10,
          validCalls: 0.5,
        });
      }
    }
  }
  out.push({
    suite: 'ood',
    model: 'sft',
    task: 'x',
    family: 'f',
    attempt: 0,
    resolved: true,
    dense: 1,
    validCalls: null,
  });
  return out;
}

const asEpisodes = (ls: readonly OutcomeLine[], model: string, suite: string): ComparableEpisode[] =>
  ls
    .filter((l) => l.model === model && l.suite === suite)
    .map((l) => ({
      taskId: l.task,
      category: l.family,
      attempt: l.attempt,
      resolved: l.resolved,
      reward: { dense: l.dense },
    }));

describe('outcomes.jsonl', () => {
  test('a round trip: written, read back, compared as the episodes themselves are', () => {
    const file = join(dir, 'outcomes.jsonl');
    writeOutcomes(file, lines());
    expect(readOutcomes(file)).toEqual(lines());
    const fromFile = compareRuns(outcomesRun(file, 'sft', 'id-nano'), outcomesRun(file, 'rl-dense', 'id-nano'), {
      resamples: 500,
    });
    const direct = compareRuns(
      { run: 'sft (id-nano)', episodes: asEpisodes(lines(), 'sft', 'id-nano') },
      { run: 'rl-dense (id-nano)', episodes: asEpisodes(lines(), 'rl-dense', 'id-nano') },
      { resamples: 500 },
    );
    expect(fromFile).toEqual(direct);
    expect(fromFile.design).toBe('paired-task-shares');
    expect(fromFile.tasks).toBe(6);
  });

  test('FILE#MODEL names a model of a file; a run id or folder is not such a reference', () => {
    expect(parseOutcomesRef('docs/x/outcomes.jsonl#rl-dense')).toEqual({
      file: 'docs/x/outcomes.jsonl',
      model: 'rl-dense',
    });
    expect(parseOutcomesRef('20260101-eval-abc')).toBeNull();
    expect(parseOutcomesRef('outcomes.jsonl#')).toBeNull();
  });

  test('several suites need --suite; an unknown model or suite is named with what the file holds', () => {
    const file = join(dir, 'two-suites.jsonl');
    writeOutcomes(file, lines());
    expect(() => outcomesRun(file, 'sft')).toThrow(/holds several suites \(id-nano, ood\)/);
    expect(() => outcomesRun(file, 'rl', 'id-nano')).toThrow(
      /no model 'rl' in suite 'id-nano' \(models: rl-dense, sft\)/,
    );
    expect(() => outcomesRun(file, 'sft', 'tb2')).toThrow(/no suite 'tb2'/);
  });

  test('a malformed line is an error naming the file, the line, the field and the value', () => {
    const file = join(dir, 'bad.jsonl');
    const good = JSON.stringify(lines()[0]);
    writeFileSync(file, `${good}\n${JSON.stringify({ ...lines()[1], resolved: 'yes' })}\n`);
    expect(() => readOutcomes(file)).toThrow(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2: field 'resolved'.*\\(got "yes"\\)`),
    );
    writeFileSync(file, `${good}\n{"suite": "id-nano", "model": "sft"\n`);
    expect(() => readOutcomes(file)).toThrow(/bad\.jsonl:2: not JSON/);
    const { task: _t, ...noTask } = lines()[0]!;
    writeFileSync(file, `${JSON.stringify(noTask)}\n`);
    expect(() => readOutcomes(file)).toThrow(/bad\.jsonl:1: field 'task'.*\(got nothing\)/);
  });
});
