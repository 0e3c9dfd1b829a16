import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_SCHEMA, type EpisodeRecord, type RunManifest } from '../../../electron/domain/runs';
import { outcomeLines } from '../../../electron/lab/experiments/outcome-lines';
import { episodeFolder, RunStore } from '../../../electron/lab/runs/store';
import { makeTempDir } from '../../helpers/tmp';

const PACK = resolve('tasks/suites/id-nano.jsonl');
const [first, second] = readFileSync(PACK, 'utf8')
  .split('\n')
  .slice(0, 2)
  .map((line) => JSON.parse(line) as { id: string });

function manifest(suite: string): RunManifest {
  return {
    schema: RUN_SCHEMA,
    id: 'r1',
    createdAt: '2026-01-01T00:00:00Z',
    config: {
      kind: 'eval',
      suite,
      policy: 'oracle',
      policySettings: {},
      harness: { maxTurns: 6, contextStrategy: 'drop-oldest', observationChars: 10_000 },
      attempts: 1,
      concurrency: 1,
      episodeDeadlineSec: null,
      seed: 1,
      tasks: [],
    },
    code: { version: '0.1.0', commit: null },
    host: { platform: 'linux-x64', cores: 2, node: '22' },
  };
}

function record(taskId: string): EpisodeRecord {
  return {
    key: `${taskId}@0`,
    taskId,
    attempt: 0,
    category: 'text-processing',
    difficulty: 'easy',
    resolved: false,
    reward: { dense: 0, fraction: 0, binary: 0 },
    turns: 1,
    stopReason: 'submitted',
    error: null,
    tokens: { prompt: 0, completion: 0 },
    costUsd: null,
    durationMs: 10,
    dir: episodeFolder(taskId, 0),
    finishedAt: '2026-01-01T00:00:01Z',
  };
}

describe('outcome lines', () => {
  const tmps: { remove(): void }[] = [];
  afterEach(() => tmps.splice(0).forEach((t) => t.remove()));

  async function runOn(suite: string): Promise<string> {
    const t = makeTempDir();
    tmps.push(t);
    const dir = join(t.path, 'run');
    const store = RunStore.create(dir, manifest(suite));
    await store.append(record(first!.id));
    await store.append(record(second!.id));
    await store.close();
    return dir;
  }

  it("name each synthesized task's own family, read from the run's pack, not its category", async () => {
    const lines = outcomeLines({ runDir: await runOn(PACK), model: 'sft', suite: 'id-nano' });
    expect(lines.map((l) => [l.task, l.family])).toEqual(
      [
        [second!.id, 'count-matches'],
        [first!.id, 'write-file'],
      ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
    );
  });

  it('fall back to the category where the suite is gone', async () => {
    const lines = outcomeLines({ runDir: await runOn('/nowhere/suite.jsonl'), model: 'sft', suite: 'id-nano' });
    expect(lines.map((l) => l.family)).toEqual(['text-processing', 'text-processing']);
  });
});
