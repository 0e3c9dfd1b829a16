import { describe, expect, it } from 'vitest';
import { buildTask, type TaskFile } from '../../../electron/lab/tasks';
import { parseTaskToml, sizeToMb } from '../../../electron/lab/tasks/config/task-toml';

const enc = new TextEncoder();
const file = (path: string, text: string, executable = false): TaskFile => ({
  path,
  data: enc.encode(text),
  executable,
});
const origin = { kind: 'folder' as const, path: '/x' };

const TOML = `
[metadata]
category = "data-processing"
difficulty = "medium"
tags = ["csv"]
author_name = "someone"

[agent]
timeout_sec = 120

[verifier]
timeout_sec = 30.5

[[verifier.assertions]]
name = "out exists"
run = "test -f out"

[environment]
memory = "1G"
storage_mb = 300
env = { TZ = "UTC" }
`;

function harbor(extra: TaskFile[] = [], toml = TOML): TaskFile[] {
  return [
    file('instruction.md', '# Do it\n\nDetails.'),
    file('task.toml', toml),
    file('solution/solve.sh', 'touch out\n', true),
    ...extra,
  ];
}

function errorsOf(files: TaskFile[]) {
  return buildTask('t', files, origin).problems.filter((p) => p.severity === 'error');
}

describe('task.toml', () => {
  it('reads Harbor fields, our extensions and keeps unknown metadata', () => {
    const { task, problems } = buildTask('t', harbor(), origin);
    expect(problems).toEqual([]);
    expect(task).not.toBeNull();
    expect(task?.metadata).toEqual({
      category: 'data-processing',
      difficulty: 'medium',
      tags: ['csv'],
      extra: { author_name: 'someone' },
    });
    expect(task?.agent.timeoutSec).toBe(120);
    expect(task?.verifier.timeoutSec).toBe(30.5);
    expect(task?.verifier.assertions).toEqual([{ name: 'out exists', run: 'test -f out', timeoutSec: null }]);
    expect(task?.environment).toMatchObject({
      memoryMb: 1024,
      storageMb: 300,
      workdir: '/app',
      allowInternet: false,
      env: { TZ: 'UTC' },
      runtime: { kind: 'sandbox' },
    });
    expect(task?.solution).toEqual({ kind: 'script', path: 'solution/solve.sh' });
  });

  it('reports a TOML syntax error with its line and column', () => {
    const result = parseTaskToml('[metadata]\ncategory = "x"\ndifficulty = \n');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.syntax).toMatch(/^malformed TOML at line 3, column \d+/);
    const problems = errorsOf(harbor([], '[metadata\ncategory = "x"\n'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'task.toml', field: null });
    expect(problems[0]?.reason).toMatch(/malformed TOML at line 1/);
  });

  it('names the field and the reason of every schema problem', () => {
    const problems = errorsOf(
      harbor(
        [],
        '[metadata]\ndifficulty = "extreme"\ntags = "csv"\n[agent]\ntimeout_sec = "fast"\n[environment]\nenv = { "1BAD" = "x" }\nworkdir = "/tmp"\n[[verifier.assertions]]\nname = "a"\n',
      ),
    );
    const byField = Object.fromEntries(problems.map((p) => [p.field, p.reason]));
    expect(byField['metadata.difficulty']).toMatch(/unknown difficulty 'extreme' \(expected easy, medium or hard\)/);
    expect(byField['metadata.tags']).toMatch(/list of strings/);
    expect(byField['agent.timeout_sec']).toMatch(/seconds/);
    expect(byField['environment.env.1BAD']).toMatch(/not a valid environment variable name/);
    expect(byField['environment.workdir']).toMatch(/system folder/);
    expect(byField['verifier.assertions.0.run']).toMatch(/run/);
  });

  it('requires an instruction and some verifier', () => {
    const noInstruction = errorsOf(harbor().filter((f) => f.path !== 'instruction.md'));
    expect(noInstruction).toContainEqual(
      expect.objectContaining({ file: 'instruction.md', reason: expect.stringMatching(/missing/) }),
    );
    const empty = errorsOf([
      file('instruction.md', '  \n'),
      file('task.toml', '[metadata]\ncategory="x"\ndifficulty="easy"\n'),
    ]);
    expect(empty.map((p) => p.file)).toEqual(['instruction.md', 'tests']);
    expect(empty[1]?.reason).toMatch(/no verifier/);
  });

  it('rejects duplicate assertion names', () => {
    const toml =
      '[[verifier.assertions]]\nname = "a"\nrun = "true"\n[[verifier.assertions]]\nname = "a"\nrun = "false"\n';
    expect(errorsOf(harbor([], toml))).toContainEqual(
      expect.objectContaining({ field: 'verifier.assertions[1].name', reason: "duplicate assertion name 'a'" }),
    );
  });

  it('warns (does not fail) on a missing category, difficulty or solution', () => {
    const { task, problems } = buildTask(
      't',
      [file('instruction.md', 'x'), file('task.toml', '[[verifier.assertions]]\nname="a"\nrun="true"\n')],
      origin,
    );
    expect(task).not.toBeNull();
    expect(task?.metadata.category).toBe('uncategorized');
    expect(problems.map((p) => [p.severity, p.field ?? p.file])).toEqual([
      ['warning', 'metadata.category'],
      ['warning', 'metadata.difficulty'],
      ['warning', 'solution/solve.sh'],
    ]);
  });

  it('refuses instruction files that are not UTF-8', () => {
    const files = harbor().map((f) =>
      f.path === 'instruction.md' ? { ...f, data: new Uint8Array([0xff, 0xfe, 0x00, 0x41]) } : f,
    );
    expect(errorsOf(files)).toContainEqual(
      expect.objectContaining({ file: 'instruction.md', reason: 'is not valid UTF-8 text' }),
    );
  });

  it('parses Harbor size strings', () => {
    expect([sizeToMb('2G'), sizeToMb('512M'), sizeToMb('1.5g'), sizeToMb('2048')]).toEqual([2048, 512, 1536, 2048]);
  });
});

describe('runtime', () => {
  it('marks container tasks with the reason', () => {
    const runtime = (extra: TaskFile[], toml = TOML) =>
      buildTask('t', harbor(extra, toml), origin).task?.environment.runtime;
    expect(runtime([file('environment/Dockerfile', 'FROM ubuntu\n')])).toEqual({
      kind: 'container',
      reason: expect.stringMatching(/environment\/Dockerfile/),
    });
    expect(runtime([], `${TOML}\ndocker_image = "ghcr.io/x/y:1"\n`)).toEqual({
      kind: 'container',
      reason: expect.stringMatching(/ghcr\.io\/x\/y:1/),
    });
    expect(runtime([], `${TOML}\ngpus = 1\n`)).toEqual({ kind: 'container', reason: expect.stringMatching(/GPU/) });
    expect(runtime([file('environment/docker-compose.yaml', 'services: {}\n')])).toEqual({
      kind: 'container',
      reason: expect.stringMatching(/docker-compose/),
    });
    // An imported task converted to the sandbox keeps its Dockerfile for reference.
    expect(runtime([file('environment/Dockerfile', 'FROM ubuntu\n')], `${TOML}\nruntime = "sandbox"\n`)).toEqual({
      kind: 'sandbox',
    });
  });
});

describe('legacy Terminal-Bench 1 layout', () => {
  const yaml =
    'instruction: |-\n  Fix it.\ndifficulty: hard\ncategory: debugging\ntags: [a]\nmax_agent_timeout_sec: 200\nmax_test_timeout_sec: 20\nauthor_email: x@y\n';

  it('maps task.yaml, solution.sh, run-tests.sh and tests/test_outputs.py', () => {
    const { task, problems } = buildTask(
      't',
      [
        file('task.yaml', yaml),
        file('solution.sh', 'true\n'),
        file('run-tests.sh', 'pip install pytest\n'),
        file('tests/test_outputs.py', 'def test_x(): pass\n'),
      ],
      origin,
    );
    expect(problems).toEqual([]);
    expect(task).toMatchObject({
      layout: 'tb1',
      instruction: 'Fix it.',
      metadata: { category: 'debugging', difficulty: 'hard', tags: ['a'], extra: { author_email: 'x@y' } },
      agent: { timeoutSec: 200 },
      verifier: { timeoutSec: 20, testScript: 'run-tests.sh', runTestScript: false, pytest: 'tests/test_outputs.py' },
      solution: { kind: 'script', path: 'solution.sh' },
      environment: { runtime: { kind: 'sandbox' } },
    });
  });

  it('runs run-tests.sh when there is no test_outputs.py, and reads solution.yaml', () => {
    const { task } = buildTask(
      't',
      [
        file('task.yaml', yaml),
        file('solution.yaml', '- command: echo hi > a\n- command: cat a\n'),
        file('run-tests.sh', 'test -f a\n'),
      ],
      origin,
    );
    expect(task?.verifier.runTestScript).toBe(true);
    expect(task?.solution).toEqual({ kind: 'commands', path: 'solution.yaml', commands: ['echo hi > a', 'cat a'] });
  });

  it('reports malformed YAML with its position, and a Dockerfile as a container need', () => {
    expect(errorsOf([file('task.yaml', 'instruction: [unclosed\n')])[0]?.reason).toMatch(
      /malformed YAML at line \d+, column \d+/,
    );
    const { task } = buildTask(
      't',
      [file('task.yaml', yaml), file('Dockerfile', 'FROM x\n'), file('run-tests.sh', 'true\n')],
      origin,
    );
    expect(task?.environment.runtime).toEqual({ kind: 'container', reason: expect.stringMatching(/Dockerfile/) });
  });
});
