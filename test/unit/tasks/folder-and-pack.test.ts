import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  loadTaskSource,
  packLineOf,
  readPack,
  readTaskFolder,
  writePack,
  writeTaskFolder,
} from '../../../electron/lab/tasks';
import { taskPathProblem } from '../../../electron/lab/tasks/paths';
import { makeTempDir } from '../../helpers/tmp';

let tmp: { path: string; remove(): void };
beforeEach(() => (tmp = makeTempDir('t1lab-tasks-')));
afterEach(() => tmp.remove());

function writeTask(dir: string, files: Record<string, string | Buffer>, executable: string[] = []): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content, { mode: executable.includes(path) ? 0o755 : 0o644 });
  }
  return dir;
}

const MINIMAL = {
  'instruction.md': 'Write hi.\n',
  'task.toml':
    '[metadata]\ncategory = "x"\ndifficulty = "easy"\n[[verifier.assertions]]\nname = "hi"\nrun = "grep -q hi out"\n',
  'solution/solve.sh': '#!/bin/bash\necho hi > out\n',
};

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

describe('task paths', () => {
  it('refuses everything that could leave the task', () => {
    for (const bad of ['../x', 'a/../../b', '/etc/passwd', 'a\\b', 'C:/x', 'a//b', './a', 'a/./b', '', 'a\0b']) {
      expect(taskPathProblem(bad), bad).not.toBeNull();
    }
    for (const good of ['a', 'a/b.txt', '.env', 'tests/test_outputs.py', 'x..y'])
      expect(taskPathProblem(good), good).toBeNull();
  });
});

describe('reading a task folder', () => {
  it('refuses symlinks pointing out, dangling or at folders; reads symlinks to files inside', async () => {
    const dir = writeTask(join(tmp.path, 't'), { ...MINIMAL, 'environment/files/data.txt': 'data\n' });
    writeFileSync(join(tmp.path, 'secret'), 'host secret\n');
    symlinkSync(join(tmp.path, 'secret'), join(dir, 'environment/files/leak'));
    symlinkSync('../../../secret', join(dir, 'environment/files/leak-relative'));
    symlinkSync('nowhere', join(dir, 'environment/files/dangling'));
    symlinkSync('..', join(dir, 'environment/files/up'));
    symlinkSync('data.txt', join(dir, 'environment/files/alias.txt'));
    const read = await readTaskFolder(dir);
    const reasons = Object.fromEntries(read.problems.map((p) => [p.file, p.reason]));
    expect(reasons['environment/files/leak']).toMatch(/symlink pointing outside the task/);
    expect(reasons['environment/files/leak-relative']).toMatch(/symlink pointing outside the task/);
    expect(reasons['environment/files/dangling']).toMatch(/dangling/);
    expect(reasons['environment/files/up']).toMatch(/outside the task|folder/);
    const alias = read.files.find((f) => f.path === 'environment/files/alias.txt');
    expect(alias && Buffer.from(alias.data).toString()).toBe('data\n');
    expect(read.files.some((f) => Buffer.from(f.data).toString().includes('host secret'))).toBe(false);
  });

  it('refuses FIFOs and oversize files, and skips tool folders', async () => {
    const dir = writeTask(join(tmp.path, 't'), {
      ...MINIMAL,
      'environment/files/big.bin': Buffer.alloc(3000),
      '.git/HEAD': 'ref\n',
      'tests/__pycache__/x.pyc': 'x',
    });
    execFileSync('mkfifo', [join(dir, 'environment/files/pipe')]);
    const read = await readTaskFolder(dir, { maxFileBytes: 2048, maxTaskBytes: 1 << 20, maxFiles: 100 });
    expect(read.problems).toContainEqual(
      expect.objectContaining({ file: 'environment/files/pipe', reason: expect.stringMatching(/FIFO/) }),
    );
    expect(read.problems).toContainEqual(
      expect.objectContaining({
        file: 'environment/files/big.bin',
        reason: expect.stringMatching(/over the 2048 bytes limit/),
      }),
    );
    expect(read.files.map((f) => f.path)).not.toContain('.git/HEAD');
    expect(read.files.map((f) => f.path)).not.toContain('tests/__pycache__/x.pyc');
    const total = await readTaskFolder(dir, { maxFileBytes: 1 << 20, maxTaskBytes: 1000, maxFiles: 100 });
    expect(total.problems).toContainEqual(
      expect.objectContaining({ reason: expect.stringMatching(/over its 1000 bytes size limit/) }),
    );
  });

  it('lists a bad task among good ones without stopping', async () => {
    writeTask(join(tmp.path, 'lib', 'good'), MINIMAL);
    writeTask(join(tmp.path, 'lib', 'group', 'also-good'), MINIMAL);
    writeTask(join(tmp.path, 'lib', 'bad'), { ...MINIMAL, 'task.toml': '[metadata\n' });
    const source = await loadTaskSource(join(tmp.path, 'lib'));
    expect(source.tasks.map((t) => t.id).sort()).toEqual(['also-good', 'good']);
    expect(source.invalid.map((t) => t.id)).toEqual(['bad']);
    expect(source.invalid[0]?.problems[0]).toMatchObject({
      file: 'task.toml',
      reason: expect.stringMatching(/malformed TOML at line 1/),
    });
  });
});

describe('packs', () => {
  it('round-trips folders byte for byte, binary files and executable bits included', async () => {
    const binary = Buffer.from([0, 1, 2, 255, 254, 0x80, 0x0a]);
    const src = join(tmp.path, 'src');
    writeTask(
      join(src, 'one'),
      { ...MINIMAL, 'environment/files/blob.bin': binary, 'environment/files/bom.txt': '\ufeffBOM kept\n' },
      ['solution/solve.sh'],
    );
    writeTask(join(src, 'two'), MINIMAL);
    const source = await loadTaskSource(src);
    const pack = join(tmp.path, 'tasks.jsonl');
    expect(await writePack(pack, source.tasks)).toBe(2);
    const lines = readFileSync(pack, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(
      JSON.parse(lines[0] as string).files.find((f: { path: string }) => f.path === 'environment/files/blob.bin'),
    ).toEqual({ path: 'environment/files/blob.bin', base64: binary.toString('base64') });

    const out = join(tmp.path, 'out');
    for await (const entry of readPack(pack)) {
      expect(entry.problems.filter((p) => p.severity === 'error')).toEqual([]);
      await writeTaskFolder(join(out, entry.id), entry.task?.files ?? []);
    }
    for (const id of ['one', 'two']) {
      expect(listFiles(join(out, id))).toEqual(listFiles(join(src, id)));
      for (const f of listFiles(join(src, id))) {
        expect(readFileSync(join(out, id, f)).equals(readFileSync(join(src, id, f))), f).toBe(true);
        expect(statSync(join(out, id, f)).mode & 0o111, f).toBe(statSync(join(src, id, f)).mode & 0o111);
      }
    }
  });

  it('reports each bad line with its line, field and reason, and loads the others', async () => {
    const good = (id: string) =>
      packLineOf({
        id,
        files: Object.entries(MINIMAL).map(([path, text]) => ({
          path,
          data: new TextEncoder().encode(text),
          executable: false,
        })),
      });
    const withFile = (id: string, file: object) => {
      const line = JSON.parse(good(id));
      line.files.push(file);
      return JSON.stringify(line);
    };
    const pack = join(tmp.path, 'mixed.jsonl');
    writeFileSync(
      pack,
      [
        good('first'),
        withFile('escape', { path: '../../etc/cron.d/evil', text: '* * * * * root sh\n' }),
        withFile('absolute', { path: '/etc/passwd', text: 'x' }),
        withFile('sneaky', { path: 'tests/../../outside', text: 'x' }),
        '{"id": "broken", "files": [',
        withFile('bad64', { path: 'a.bin', base64: 'not base64!' }),
        good('first'),
        '',
        withFile('dup-path', { path: 'instruction.md', text: 'again' }),
        JSON.stringify({ id: '../evil', files: [] }),
        good('last'),
      ].join('\n'),
    );
    const entries = [];
    for await (const e of readPack(pack)) entries.push(e);
    expect(entries.filter((e) => e.task).map((e) => e.id)).toEqual(['first', 'last']);
    const bad = Object.fromEntries(entries.filter((e) => !e.task).map((e) => [`${e.id}@${e.line}`, e.problems[0]]));
    expect(bad['escape@2']).toEqual({
      file: 'mixed.jsonl:2',
      field: 'files[3].path',
      reason: "'../../etc/cron.d/evil' escapes the task folder ('..')",
      severity: 'error',
    });
    expect(bad['absolute@3']).toMatchObject({ field: 'files[3].path', reason: expect.stringMatching(/is absolute/) });
    expect(bad['sneaky@4']).toMatchObject({ field: 'files[3].path', reason: expect.stringMatching(/escapes/) });
    expect(bad['line-5@5']).toMatchObject({ file: 'mixed.jsonl:5', reason: expect.stringMatching(/not valid JSON/) });
    expect(bad['bad64@6']).toMatchObject({
      field: 'files[3].base64',
      reason: expect.stringMatching(/not valid base64/),
    });
    expect(bad['first@7']).toMatchObject({ field: 'id', reason: "duplicate id 'first' (first on line 1)" });
    expect(bad['dup-path@9']).toMatchObject({ field: 'files[3].path', reason: "'instruction.md' appears twice" });
    expect(bad['../evil@10']).toMatchObject({ field: 'id', reason: expect.stringMatching(/not a valid task id/) });
  });

  it('locates task-level problems of a pack line inside the line', async () => {
    const pack = join(tmp.path, 'p.jsonl');
    writeFileSync(
      pack,
      `${JSON.stringify({
        id: 'x',
        files: [
          { path: 'instruction.md', text: 'x' },
          { path: 'task.toml', text: '[metadata]\ndifficulty = "hardest"\n' },
        ],
      })}\n`,
    );
    const source = await loadTaskSource(pack);
    expect(source.invalid[0]?.problems).toContainEqual(
      expect.objectContaining({ file: 'p.jsonl:1:task.toml', field: 'metadata.difficulty' }),
    );
  });
});
