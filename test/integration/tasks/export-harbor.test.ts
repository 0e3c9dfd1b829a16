/**
 * `tasks export --format harbor` (issue 37): every built-in task exports to a Harbor folder and imports
 * back as the same task (content hash); the exported verifier, run as Harbor runs tests/test.sh, writes
 * the reward file with the dense reward beside the binary one and agrees with the assertions; the CLI
 * resolves suite names. The run in the container backend is in test/integration/containers/export-harbor.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTask, filesUnder, loadTaskSource, writeTaskFolder, type Task } from '../../../electron/lab/tasks';
import {
  EXPORT_BASE_IMAGE,
  EXPORT_MANIFEST,
  harborTaskFiles,
  restoreExportedFiles,
} from '../../../electron/lab/tasks/export/harbor';
import { importTerminalBench } from '../../../electron/lab/tasks/import/import-tb';
import { taskHashes } from '../../../electron/lab/tasks/synth/content-hash';
import { parseJsonOutput, REPO_ROOT, runT1lab } from '../../helpers/cli';
import { makeTempDir } from '../../helpers/tmp';

const SOURCES = [
  'tasks/suites/nano-bench.jsonl',
  'tasks/suites/id-nano.jsonl',
  'tasks/suites/long-horizon.jsonl',
  'tasks/examples',
];

describe('tasks export --format harbor', () => {
  let tmp: { path: string; remove(): void };
  beforeAll(() => {
    tmp = makeTempDir('t1lab-export-');
  });
  afterAll(() => tmp.remove());

  it.each(SOURCES)(
    'export then import gives back every task of %s with the same content hash',
    async (source) => {
      const loaded = await loadTaskSource(join(REPO_ROOT, source));
      expect(loaded.tasks.length).toBeGreaterThan(0);
      const out = join(tmp.path, source.replace(/\W/g, '_'));
      for (const task of loaded.tasks) await writeTaskFolder(join(out, task.id), harborTaskFiles(task));
      const back = join(out + '-imported');
      const report = await importTerminalBench(out, back);
      expect(report.failed).toEqual([]);
      expect(report.imported.map((t) => t.id).sort()).toEqual(loaded.tasks.map((t) => t.id).sort());
      const reloaded = new Map((await loadTaskSource(back)).tasks.map((t) => [t.id, t]));
      for (const task of loaded.tasks) {
        const again = reloaded.get(task.id) as Task;
        expect(taskHashes(again.files).content, task.id).toBe(taskHashes(task.files).content);
        expect(again.verifier.assertions).toEqual(task.verifier.assertions);
      }
    },
    120_000,
  );

  it('writes the Harbor layout: task.toml fields, a Dockerfile building the start state, the oracle, tests/test.sh', async () => {
    const [task] = (await loadTaskSource(join(REPO_ROOT, 'tasks/examples/service-migration'))).tasks as [Task];
    const files = new Map(harborTaskFiles(task).map((f) => [f.path, f]));
    const text = (p: string) => new TextDecoder().decode(files.get(p)?.data);
    const toml = parseToml(text('task.toml')) as Record<string, Record<string, unknown>>;
    expect(toml.agent?.timeout_sec).toBe(task.agent.timeoutSec);
    expect(toml.verifier?.timeout_sec).toBe(task.verifier.timeoutSec);
    expect(toml.environment).toMatchObject({
      cpus: task.environment.cpus,
      memory_mb: task.environment.memoryMb,
      allow_internet: false,
    });
    expect(toml.metadata?.category).toBe(task.metadata.category);
    const dockerfile = text('environment/Dockerfile');
    expect(dockerfile).toContain(`FROM ${EXPORT_BASE_IMAGE}`);
    expect(dockerfile).toContain(`WORKDIR ${task.environment.workdir}`);
    expect(dockerfile).toContain(`COPY files/ ${task.environment.workdir}/`);
    expect(files.get('solution/solve.sh')?.executable).toBe(true);
    expect(files.get('tests/test.sh')?.executable).toBe(true);
    // A pytest task runs pytest as a line of test.sh (what Harbor's tasks do), then the runner.
    expect(text('tests/test.sh')).toMatch(
      /python3 -m pytest \/tests\/test_outputs.py .*--junitxml=\/logs\/verifier\/junit.xml/,
    );
    expect(text('tests/test.sh')).toContain('python3 /tests/t1lab_verify.py');
    // The lab's own task.toml is kept aside, and the manifest says so.
    expect(text('t1lab-export/task.toml')).toBe(
      new TextDecoder().decode(task.files.find((f) => f.path === 'task.toml')?.data),
    );
    const manifest = JSON.parse(text(EXPORT_MANIFEST)) as {
      generated: string[];
      moved: { from: string; to: string }[];
    };
    expect(manifest.moved).toEqual([{ from: 't1lab-export/task.toml', to: 'task.toml' }]);
    expect(manifest.generated).toContain('environment/Dockerfile');
  });

  it('an export edited after the fact imports with its edits; a damaged manifest is refused with the reason', async () => {
    const [task] = (await loadTaskSource(join(REPO_ROOT, 'tasks/examples/count-log-levels'))).tasks as [Task];
    const files = harborTaskFiles(task);
    const edited = files.map((f) =>
      f.path === 'instruction.md' ? { ...f, data: new TextEncoder().encode('Edited.\n') } : f,
    );
    const restored = restoreExportedFiles(edited);
    expect(
      restored &&
        'files' in restored &&
        new TextDecoder().decode(restored.files.find((f) => f.path === 'instruction.md')?.data),
    ).toBe('Edited.\n');
    const broken = files.map((f) =>
      f.path === EXPORT_MANIFEST ? { ...f, data: new TextEncoder().encode('{"format":"other"}') } : f,
    );
    expect(restoreExportedFiles(broken)).toMatchObject({
      problem: expect.stringMatching(/not a T1 Lab export manifest/),
    });
    expect(restoreExportedFiles(task.files)).toBeNull();
  });

  /** The exported verifier as Harbor runs it, on a workspace the oracle solved (or left untouched). */
  async function verifyExported(
    task: Task,
    solve: boolean,
  ): Promise<{ reward: Record<string, number>; ctrf: { results: { tests: { name: string; status: string }[] } } }> {
    const root = join(tmp.path, `verify-${task.id}-${solve ? 'solved' : 'noop'}`);
    const work = join(root, 'app');
    const tests = join(root, 'tests');
    const logs = join(root, 'logs');
    mkdirSync(logs, { recursive: true });
    await writeTaskFolder(work, filesUnder(task, 'environment/files'));
    const exported = harborTaskFiles(task);
    await writeTaskFolder(tests, filesUnder({ files: exported }, 'tests'));
    // The spec names /app; the runner falls back to its working folder when that does not exist here.
    const spec = JSON.parse(readFileSync(join(tests, 't1lab_assertions.json'), 'utf8')) as { workdir: string };
    writeFileSync(join(tests, 't1lab_assertions.json'), JSON.stringify({ ...spec, workdir: work }));
    if (solve)
      execFileSync(
        'bash',
        ['-c', new TextDecoder().decode(exported.find((f) => f.path === 'solution/solve.sh')?.data)],
        { cwd: work, stdio: 'ignore' },
      );
    execFileSync('python3', [join(tests, 't1lab_verify.py')], {
      cwd: work,
      env: { ...process.env, T1LAB_VERIFIER_LOGS: logs },
      stdio: 'ignore',
    });
    return {
      reward: JSON.parse(readFileSync(join(logs, 'reward.json'), 'utf8')) as Record<string, number>,
      ctrf: JSON.parse(readFileSync(join(logs, 'ctrf.json'), 'utf8')) as never,
    };
  }

  it('the exported tests/ write reward.json with the dense reward beside the binary one, one CTRF test per assertion', async () => {
    const source = await loadTaskSource(join(REPO_ROOT, 'tasks/suites/nano-bench.jsonl'));
    const task = source.tasks.find((t) => t.verifier.assertions.length >= 3 && t.environment.setup === null) as Task;
    const solved = await verifyExported(task, true);
    const n = task.verifier.assertions.length;
    expect(solved.reward).toEqual({ reward: 1, binary: 1, dense: n, fraction: 1, passed: n, total: n });
    expect(solved.ctrf.results.tests.map((t) => t.name)).toEqual(task.verifier.assertions.map((a) => a.name));
    const noop = await verifyExported(task, false);
    expect(noop.reward.reward).toBe(0);
    expect(noop.reward.total).toBe(n);
    expect(noop.reward.dense).toBeLessThan(n);
    expect(noop.reward.fraction).toBeCloseTo((noop.reward.dense ?? NaN) / n, 9);
  }, 60_000);

  it('a pytest task: the JUnit report of pytest gives one assertion per test, the inline assertions follow', async () => {
    const text = (path: string, body: string, executable = false) => ({
      path,
      data: new TextEncoder().encode(body),
      executable,
    });
    const built = buildTask(
      'pytest-and-inline',
      [
        text('instruction.md', 'Write 42 to answer.txt.\n'),
        text(
          'task.toml',
          'version = "1.0"\n[metadata]\ncategory = "x"\ndifficulty = "easy"\n[[verifier.assertions]]\nname = "no stray files"\nrun = "test ! -e stray"\n',
        ),
        text('solution/solve.sh', '#!/bin/bash\necho 42 > answer.txt\n', true),
        text(
          'tests/test_outputs.py',
          'from pathlib import Path\n\ndef test_exists():\n    assert Path("answer.txt").exists()\n\ndef test_value():\n    assert Path("answer.txt").read_text().strip() == "42"\n',
        ),
      ],
      { kind: 'folder', path: '/nowhere' },
    );
    const task = built.task as Task;
    const root = join(tmp.path, 'pytest-task');
    const work = join(root, 'app');
    const tests = join(root, 'tests');
    const logs = join(root, 'logs');
    mkdirSync(logs, { recursive: true });
    mkdirSync(work, { recursive: true });
    const exported = harborTaskFiles(task);
    await writeTaskFolder(tests, filesUnder({ files: exported }, 'tests'));
    const testSh = new TextDecoder().decode(exported.find((f) => f.path === 'tests/test.sh')?.data);
    // Harbor runs test.sh with /tests and /logs/verifier; here they are folders of the temp dir.
    const local = testSh
      .replaceAll('/logs/verifier', logs)
      .replaceAll('/tests/', `${tests}/`)
      .replaceAll('--rootdir=/tests', `--rootdir=${tests}`)
      .replace(/^cd .*$/m, `cd ${work}`);
    execFileSync('bash', ['-c', 'echo 42 > answer.txt'], { cwd: work });
    execFileSync('bash', ['-c', local], {
      cwd: work,
      env: { ...process.env, T1LAB_VERIFIER_LOGS: logs },
      stdio: 'ignore',
    });
    const reward = JSON.parse(readFileSync(join(logs, 'reward.json'), 'utf8')) as Record<string, number>;
    expect(reward).toEqual({ reward: 1, binary: 1, dense: 3, fraction: 1, passed: 3, total: 3 });
    const ctrf = JSON.parse(readFileSync(join(logs, 'ctrf.json'), 'utf8')) as {
      results: { tests: { name: string }[] };
    };
    expect(ctrf.results.tests.map((t) => t.name)).toEqual(['test_exists', 'test_value', 'no stray files']);
  }, 60_000);

  it('the CLI resolves a suite by name, writes one folder per task, and refuses an unknown format', async () => {
    const out = join(tmp.path, 'cli');
    const result = await runT1lab(['tasks', 'export', '--format', 'harbor', '--out', out, '--json', 'long-horizon']);
    expect(result.code, result.stderr).toBe(0);
    const report = parseJsonOutput<{ exported: string[]; failed: unknown[] }>(result);
    expect(report.failed).toEqual([]);
    expect(report.exported.length).toBe(
      (await loadTaskSource(join(REPO_ROOT, 'tasks/suites/long-horizon.jsonl'))).tasks.length,
    );
    for (const id of report.exported) {
      expect(existsSync(join(out, id, 'environment/Dockerfile'))).toBe(true);
      expect(statSync(join(out, id, 'tests/test.sh')).mode & 0o111).not.toBe(0);
    }
    const bad = await runT1lab(['tasks', 'export', '--format', 'zip', '--out', join(tmp.path, 'x'), 'long-horizon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format zip: unknown/);
    const missing = await runT1lab(['tasks', 'export', '--out', join(tmp.path, 'y'), 'no-such-suite']);
    expect(missing.code).toBe(2);
    // Re-exporting into the same folders is refused rather than mixed with what is there.
    const again = await runT1lab(['tasks', 'export', '--out', out, 'long-horizon']);
    expect(again.code).toBe(1);
  }, 120_000);
});
