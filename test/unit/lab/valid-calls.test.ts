/** The share of evaluation turns with a valid tool call, read from the episodes' trajectory files. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EpisodeRecord } from '../../../electron/domain/runs';
import { compareValidCalls, validCallsByTask, validCallShare } from '../../../electron/lab/experiments/valid-calls';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-valid-calls-');
afterAll(() => tmp.remove());

const bash = { tool: 'bash', command: 'ls' };

/** An eval run folder whose episodes hold these turns (`ok`: parsed with an action; `bad`: a parse error; `empty`: parsed, no action). */
function run(
  name: string,
  episodes: Record<string, ('ok' | 'bad' | 'empty')[] | null>,
): { dir: string; records: EpisodeRecord[] } {
  const dir = join(tmp.path, name);
  const records = Object.entries(episodes).map(([key, turns]) => {
    const [taskId] = key.split('@');
    const rel = join('episodes', key.replace('@', '-'));
    if (turns) {
      mkdirSync(join(dir, rel), { recursive: true });
      const json = turns.map((t) => ({
        parseError: t === 'bad' ? 'no tool call' : null,
        actions: t === 'ok' ? [bash] : [],
      }));
      writeFileSync(join(dir, rel, 'trajectory.json'), JSON.stringify({ turns: json }));
    }
    return { key, taskId, dir: rel } as unknown as EpisodeRecord;
  });
  return { dir, records };
}

describe('valid tool calls', () => {
  it('counts turns that parsed and held an action, per task and over the run', () => {
    const a = run('base', { 'x@0': ['bad', 'bad', 'ok'], 'x@1': ['empty'], 'y@0': ['bad', 'bad'], 'z@0': null });
    const byTask = validCallsByTask(a.dir, a.records);
    expect(Object.fromEntries(byTask)).toEqual({ x: { turns: 4, valid: 1 }, y: { turns: 2, valid: 0 } });
    expect(validCallShare(byTask)).toBeCloseTo(1 / 6);
    expect(validCallShare(new Map())).toBeNull();
  });

  it('compares two runs per task, paired, with a bootstrap interval', () => {
    const a = validCallsByTask(
      ...(Object.values(run('a', { 'x@0': ['bad', 'ok'], 'y@0': ['bad', 'bad'], 'w@0': ['ok'] })) as [
        string,
        EpisodeRecord[],
      ]),
    );
    const b = validCallsByTask(
      ...(Object.values(run('b', { 'x@0': ['ok', 'ok'], 'y@0': ['ok', 'bad'], 'v@0': ['ok'] })) as [
        string,
        EpisodeRecord[],
      ]),
    );
    const c = compareValidCalls(a, b)!;
    // Tasks in both: x (0.5 -> 1) and y (0 -> 0.5).
    expect(c.tasks).toBe(2);
    expect(c.diff).toBeCloseTo(0.5);
    expect(c.ci95[0]).toBeCloseTo(0.5);
    expect(c.ci95[1]).toBeCloseTo(0.5);
    expect(compareValidCalls(a, new Map())).toBeNull();
  });

  it('names the file of an unreadable trajectory', () => {
    const r = run('broken', { 'x@0': ['ok'] });
    writeFileSync(join(r.dir, r.records[0]!.dir, 'trajectory.json'), '{"turns": [');
    expect(() => validCallsByTask(r.dir, r.records)).toThrow(
      /broken\/episodes\/x-0\/trajectory\.json: not a readable trajectory/,
    );
  });
});
