/** The tasks.* contract through the real host and router (in-memory transport), auditing in real sandboxes. */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from '../../../electron/ipc/common/client';
import type { LabContract } from '../../../electron/ipc/common/contract';
import { createMemoryPair } from '../../../electron/ipc/common/memory';
import type { AuditProgress } from '../../../electron/domain/tasks';
import { createLabHost, type LabHost } from '../../../electron/lab/host';
import { forkLauncher } from '../../../electron/processes/launcher';
import { makeTempDir } from '../../helpers/tmp';
import { FIXTURES } from './helpers';

let tmp: { path: string; remove(): void };
let host: LabHost;
let client: Client<LabContract>;

beforeAll(() => {
  tmp = makeTempDir('t1lab-host-tasks-');
  // The user's own tasks: a folder of tasks and a pack with one bad line.
  mkdirSync(join(tmp.path, 'tasks'), { recursive: true });
  cpSync(join(FIXTURES, 'broken'), join(tmp.path, 'tasks', 'mine'), { recursive: true });
  const good = {
    id: 'from-pack',
    files: [
      { path: 'instruction.md', text: 'Say hi.' },
      {
        path: 'task.toml',
        text: '[metadata]\ncategory = "packed"\ndifficulty = "hard"\n[[verifier.assertions]]\nname = "hi"\nrun = "grep -q hi out"\n',
      },
      { path: 'solution/solve.sh', text: 'echo hi > out\n' },
    ],
  };
  writeFileSync(
    join(tmp.path, 'tasks', 'corpus.jsonl'),
    `${JSON.stringify(good)}\n{"id": "bad", "files": [{"path": "/etc/passwd", "text": "x"}]}\n`,
  );
  host = createLabHost({ dataDir: tmp.path, launcher: forkLauncher, log: () => {} });
  const pair = createMemoryPair('tasks-test');
  host.attach(pair.server);
  client = createClient<LabContract>(pair.client);
});

afterAll(async () => {
  client.close();
  await host.dispose();
  tmp.remove();
});

describe('tasks.* over the contract', () => {
  it('lists the built-in examples and the user sources, with invalid entries and their problems', async () => {
    const listing = await client.call('tasks.list', {});
    expect(listing.sources.filter((s) => s.kind !== 'suite').map((s) => s.label)).toEqual([
      'examples',
      'corpus.jsonl',
      'mine',
    ]);
    // The committed suites (tasks/suites/*.jsonl) come after the examples.
    expect(listing.sources.filter((s) => s.kind === 'suite').map((s) => s.label)).toEqual(
      expect.arrayContaining(['suites/id-nano', 'suites/nano-bench']),
    );
    expect(listing.tasks.filter((t) => t.source === 'examples')).toHaveLength(18);
    expect(listing.tasks.find((t) => t.id === 'from-pack')).toMatchObject({
      source: 'corpus.jsonl',
      category: 'packed',
      difficulty: 'hard',
      verifiers: ['inline'],
      audit: null,
    });
    expect(listing.invalid).toContainEqual({
      id: 'bad',
      source: 'corpus.jsonl',
      problems: [expect.objectContaining({ file: 'corpus.jsonl:2', field: 'files[0].path' })],
    });
    expect(listing.invalid.map((b) => b.id)).toEqual(expect.arrayContaining(['malformed-toml', 'unknown-difficulty']));
  });

  it('gives a task detail: instruction, declared assertions, oracle', async () => {
    const detail = await client.call('tasks.get', { source: 'examples', id: 'stats-module-bugs' });
    expect(detail.layout).toBe('tb1');
    expect(detail.instruction).toMatch(/^The module \/app\/stats.py has several bugs/);
    expect(detail.assertions.map((a) => a.name)).toEqual([
      'test_mean_of_empty_list_raises_value_error',
      'test_median_odd_and_even',
      'test_sample_variance',
      'test_nearest_rank_percentile',
      'test_mode_ties_pick_the_smallest',
    ]);
    expect(detail.solution).toMatch(/cat > stats.py <<'PY'/);
    await expect(client.call('tasks.get', { source: 'examples', id: 'nope' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('audits with progress events and remembers the verdicts', async () => {
    const progress: AuditProgress[] = [];
    const stop = client.on('tasks.auditProgress', (p) => progress.push(p));
    const result = await client.call('tasks.audit', {
      auditId: 'a1',
      tasks: [
        { source: 'corpus.jsonl', id: 'from-pack' },
        { source: 'mine', id: 'trivial-assertion' },
        { source: 'mine', id: 'malformed-toml' },
      ],
    });
    stop();
    const verdicts = Object.fromEntries(result.reports.map((r) => [r.result.id, r.result.verdict]));
    // A guard assertion that passes without work is a warning (listed in `guards`), not a verdict: the no-op
    // run does not resolve the task.
    expect(verdicts).toEqual({ 'from-pack': 'ok', 'trivial-assertion': 'ok', 'malformed-toml': 'invalid' });
    const trivial = result.reports.find((r) => r.result.id === 'trivial-assertion');
    expect(trivial?.result.guards).toEqual(['workdir exists']);
    expect(trivial?.noop).toEqual([
      { name: 'color is blue', status: 'failed', message: 'exit 2: grep: color.txt: No such file or directory' },
      { name: 'workdir exists', status: 'passed', message: '' },
    ]);
    expect(progress.every((p) => p.auditId === 'a1')).toBe(true);
    expect(progress.at(-1)).toMatchObject({ done: 2, total: 2 });
    expect(progress.some((p) => p.current?.step.includes('verifier'))).toBe(true);
    expect(
      progress
        .filter((p) => p.report)
        .map((p) => p.report?.result.id)
        .sort(),
    ).toEqual(['from-pack', 'trivial-assertion']);
    // The sandboxes ran in the audit worker, a process of its own; the host only routed its progress.
    const audit = (await client.call('system.workers', {})).find((w) => w.name === 'audit');
    expect(audit).toMatchObject({ name: 'audit', state: 'ready' });
    expect(audit?.pid).not.toBe(process.pid);

    expect(existsSync(join(tmp.path, 'tasks-audits.json'))).toBe(true);
    expect(JSON.parse(readFileSync(join(tmp.path, 'tasks-audits.json'), 'utf8')).reports).toHaveLength(2);
    const listing = await client.call('tasks.list', {});
    expect(listing.tasks.find((t) => t.id === 'from-pack')?.audit?.verdict).toBe('ok');
    expect((await client.call('tasks.audits', {})).map((r) => r.result.id).sort()).toEqual([
      'from-pack',
      'trivial-assertion',
    ]);
  }, 120_000);
});
