import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_SCHEMA, type EpisodeRecord, type RunManifest } from '../../../electron/domain/runs';
import { episodeFolder, RunStore } from '../../../electron/lab/runs/store';
import { makeTempDir } from '../../helpers/tmp';

const manifest: RunManifest = {
  schema: RUN_SCHEMA,
  id: 'r1',
  createdAt: '2026-01-01T00:00:00Z',
  config: {
    kind: 'eval',
    suite: '/suite',
    policy: 'oracle',
    policySettings: {},
    harness: { maxTurns: 300, contextStrategy: 'drop-oldest', observationChars: 10_000 },
    attempts: 1,
    concurrency: 2,
    episodeDeadlineSec: null,
    seed: 1,
    tasks: [{ id: 'a', category: 'c', difficulty: 'easy' }],
  },
  code: { version: '0.1.0', commit: null },
  host: { platform: 'linux-x64', cores: 2, node: '20' },
};

function record(taskId: string, attempt = 0): EpisodeRecord {
  return {
    key: `${taskId}@${attempt}`,
    taskId,
    attempt,
    category: 'c',
    difficulty: 'easy',
    resolved: true,
    reward: { dense: 1, fraction: 1, binary: 1 },
    turns: 3,
    stopReason: 'submitted',
    error: null,
    tokens: { prompt: 0, completion: 0 },
    costUsd: null,
    durationMs: 10,
    dir: episodeFolder(taskId, attempt),
    finishedAt: '2026-01-01T00:00:01Z',
  };
}

describe('run store', () => {
  const tmps: { remove(): void }[] = [];
  const tmp = () => {
    const t = makeTempDir();
    tmps.push(t);
    return t.path;
  };
  afterEach(() => tmps.splice(0).forEach((t) => t.remove()));

  it('creates run.json and appends fsync’d records that reopen', async () => {
    const dir = join(tmp(), 'run');
    const store = RunStore.create(dir, manifest);
    await Promise.all([store.append(record('a')), store.append(record('b'))]);
    await store.close();
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'))).toEqual(manifest);
    const reopened = RunStore.open(dir);
    expect(
      reopened
        .finished()
        .map((r) => r.key)
        .sort(),
    ).toEqual(['a@0', 'b@0']);
    expect(reopened.has('a@0')).toBe(true);
    await expect(reopened.append(record('a'))).rejects.toThrow(/already recorded/);
    expect(() => RunStore.create(dir, manifest)).toThrow(/already holds a run/);
  });

  it('cuts a torn last line left by a kill, and refuses a corrupt line elsewhere', async () => {
    const dir = tmp();
    const store = RunStore.create(dir, manifest);
    await store.append(record('a'));
    await store.close();
    appendFileSync(join(dir, 'episodes.jsonl'), '{"key":"b@0","taskId":"b","att');
    const reopened = RunStore.open(dir);
    expect(reopened.finished().map((r) => r.key)).toEqual(['a@0']);
    expect(readFileSync(join(dir, 'episodes.jsonl'), 'utf8').endsWith('}\n')).toBe(true);
    await reopened.append(record('b'));
    await reopened.close();
    expect(RunStore.open(dir).finished()).toHaveLength(2);
    writeFileSync(join(dir, 'episodes.jsonl'), `garbage\n${JSON.stringify(record('a'))}\n`);
    expect(() => RunStore.open(dir)).toThrow(/episodes.jsonl:1: not JSON/);
  });

  it('gives each episode a fresh folder, wiping what a killed attempt left', () => {
    const dir = tmp();
    const store = RunStore.create(dir, manifest);
    const { abs, rel } = store.prepareEpisodeDir('fix/the thing', 2);
    expect(rel).toMatch(/^episodes\/fix_the_thing-[0-9a-f]{8}-a2$/);
    writeFileSync(join(abs, 'partial.json'), '{');
    mkdirSync(join(abs, 'sub'));
    store.prepareEpisodeDir('fix/the thing', 2);
    expect(existsSync(join(abs, 'partial.json'))).toBe(false);
    expect(episodeFolder('fix_the_thing', 2)).not.toBe(rel);
  });

  it('names what is wrong with a folder that is not a run', () => {
    expect(() => RunStore.open(tmp())).toThrow(/is not a run folder \(no run.json\)/);
  });

  it('takes infrastructure errors out for a resume: kept in episodes-retried.jsonl, recorded again once', async () => {
    const dir = join(tmp(), 'run');
    const store = RunStore.create(dir, manifest);
    const lost = (id: string): EpisodeRecord => ({
      ...record(id),
      resolved: false,
      reward: null,
      turns: 0,
      stopReason: 'sandbox_error',
      error: {
        kind: 'infrastructure',
        message: "infrastructure: no engine host could run it (host 'a' failed mid-run)",
      },
    });
    const failed = {
      ...record('c'),
      resolved: false,
      error: { kind: 'sandbox' as const, message: 'the task broke its sandbox' },
    };
    await store.append(record('a'));
    await store.append(lost('b'));
    await store.append(failed);
    await store.append(lost('d'));
    await store.close();

    const reopened = RunStore.open(dir);
    expect(reopened.retryInfrastructureErrors()).toEqual(['b@0', 'd@0']);
    // The policy's outcomes stay (a sandbox error of the task's own included); the lost ones are to run again.
    expect(reopened.finished().map((r) => r.key)).toEqual(['a@0', 'c@0']);
    expect(reopened.has('b@0')).toBe(false);
    expect(
      readFileSync(join(dir, 'episodes-retried.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as EpisodeRecord).key),
    ).toEqual(['b@0', 'd@0']);
    await reopened.append({ ...record('b'), finishedAt: '2026-01-02T00:00:00Z' });
    await reopened.close();
    const after = RunStore.open(dir);
    expect(after.finished().map((r) => [r.key, r.resolved])).toEqual([
      ['a@0', true],
      ['c@0', false],
      ['b@0', true],
    ]);
    expect(after.retryInfrastructureErrors()).toEqual([]);
    await after.close();
  });
});
