/**
 * `t1lab tasks families|synth|stats|rebalance|overlap` as a user runs them: real processes, real
 * sandboxes for the audits, real HTTP to the OpenAI-compatible fixture for LLM proposals.
 */
import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORE_FAMILIES } from '../../../tasks/families';
import { runCli } from '../../../electron/cli/main';
import { parseJsonOutput, REPO_ROOT, runT1lab, type CliResult } from '../../helpers/cli';
import { startOpenAiFixture, type OpenAiFixture } from '../../helpers/openai-fixture';
import { makeTempDir } from '../../helpers/tmp';
import { EXAMPLES } from './helpers';

interface Summary {
  pack: string;
  count: number;
  families: Record<string, number>;
  categories: Record<string, number>;
  difficulties: Record<string, number>;
  rejected: Record<string, number>;
  distinct: { tasks: number; instructions: number; solutions: number; fileTrees: number };
  audit: Record<string, { audited: number; ok: number; cached: number }> | null;
  durationMs: number;
}

/** The CLI in this process (no interpreter start-up per call): same commands, exit codes and output. */
async function t1lab(args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { out: (t) => (stdout += t), err: (t) => (stderr += t), interactive: false });
  return { code, stdout, stderr };
}

let tmp: { path: string; remove(): void };
beforeAll(() => (tmp = makeTempDir('t1lab-synth-')));
afterAll(() => tmp.remove());

describe('t1lab tasks families / synth', () => {
  it('lists the families with their category and split', async () => {
    const r = await t1lab(['tasks', 'families', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = parseJsonOutput<{ name: string; category: string; heldOut: boolean }[]>(r);
    for (const f of CORE_FAMILIES)
      expect(rows).toContainEqual(expect.objectContaining({ name: f.name, category: f.category, heldOut: f.heldOut }));
  });

  it('writes the same pack byte for byte for the same arguments, a different one for another seed', async () => {
    const args = (out: string, seed: string) => [
      'tasks',
      'synth',
      '--out',
      join(tmp.path, out),
      '--count',
      '120',
      '--seed',
      seed,
      '--json',
    ];
    // Two separate processes for the same arguments: nothing of one run (clock, pid, hash order) leaks in.
    const [a, , c] = await Promise.all([
      runT1lab(args('a.jsonl', '5')),
      runT1lab(args('b.jsonl', '5')),
      t1lab(args('c.jsonl', '6')),
    ]);
    expect(c.code).toBe(0);
    expect(a.code, a.stderr).toBe(0);
    const s = parseJsonOutput<Summary>(a);
    expect(s).toMatchObject({ count: 120, rejected: {}, audit: null, distinct: { tasks: 120 } });
    expect(Object.values(s.categories).reduce((x, y) => x + y, 0)).toBe(120);
    expect(Object.keys(s.difficulties).sort()).toEqual(['easy', 'hard', 'medium']);
    expect(Object.keys(s.families).some((f) => CORE_FAMILIES.find((c) => c.name === f)?.heldOut)).toBe(false);
    expect(readFileSync(join(tmp.path, 'a.jsonl'))).toEqual(readFileSync(join(tmp.path, 'b.jsonl')));
    expect(readFileSync(join(tmp.path, 'a.jsonl'))).not.toEqual(readFileSync(join(tmp.path, 'c.jsonl')));
    expect(readFileSync(join(tmp.path, 'a.jsonl'), 'utf8').trim().split('\n')).toHaveLength(120);
  });

  it('refuses bad usage with exit 2 and names the problem', async () => {
    const held = CORE_FAMILIES.find((f) => f.heldOut)!.name;
    const cases: [string[], RegExp][] = [
      [['--families', held], /held out/],
      [['--families', 'nope'], /no family 'nope'/],
      [['--split', 'test'], /--split: 'test'/],
      [['--count', '-3'], /--count/],
      [['--llm', 'openai:http://127.0.0.1:9/v1#m'], /--seeds/],
    ];
    for (const [extra, message] of cases) {
      const r = await t1lab(['tasks', 'synth', '--out', join(tmp.path, 'x.jsonl'), ...extra]);
      expect(r.code, `${extra.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it('audits one task of every core family: every one is ok; a rerun takes every verdict from the cache', async () => {
    const cache = join(tmp.path, 'audits.jsonl');
    const out = join(tmp.path, 'audited.jsonl');
    const args = [
      'tasks',
      'synth',
      '--out',
      out,
      '--count',
      String(CORE_FAMILIES.length),
      '--seed',
      '11',
      '--split',
      'eval',
      '--audit',
      '--audit-cache',
      cache,
      '--concurrency',
      '2',
      '--json',
    ];
    const r = await t1lab(args);
    expect(r.code, r.stderr).toBe(0);
    const s = parseJsonOutput<Summary>(r);
    expect(s.rejected).toEqual({});
    expect(s.count).toBe(CORE_FAMILIES.length);
    expect(Object.keys(s.families).sort()).toEqual(CORE_FAMILIES.map((f) => f.name).sort());
    expect(Object.values(s.audit!).every((a) => a.ok === a.audited && a.cached === 0)).toBe(true);
    expect(r.stderr).toMatch(/audit/);
    const again = await t1lab(args);
    const s2 = parseJsonOutput<Summary>(again);
    expect(Object.values(s2.audit!).every((a) => a.cached === a.audited)).toBe(true);
    expect(readFileSync(out, 'utf8').split('\n').length).toBe(CORE_FAMILIES.length + 1);
  }, 240_000);
});

/** A task proposal as a model would write it: a pack line. */
function proposal(id: string, solve: string, run: string): string {
  const toml = `version = "1.0"\n[metadata]\ncategory = "file-operations"\ndifficulty = "easy"\n[[verifier.assertions]]\nname = "greeting written"\nrun = ${JSON.stringify(run)}\n[[verifier.assertions]]\nname = "greeting is one line"\nrun = "test -f greeting.txt && test $(wc -l < greeting.txt) -eq 1"\n`;
  return JSON.stringify({
    id,
    files: [
      { path: 'instruction.md', text: 'Write hello to /app/greeting.txt.' },
      { path: 'task.toml', text: toml },
      { path: 'solution/solve.sh', text: `#!/bin/bash\n${solve}\n`, executable: true },
    ],
  });
}

describe('t1lab tasks synth --llm', () => {
  let fixture: OpenAiFixture;
  beforeAll(async () => (fixture = await startOpenAiFixture()));
  afterAll(() => fixture.close());

  it('audits what the model proposes and keeps only the good task; every rejection is counted by verdict', async () => {
    fixture.script(
      {
        kind: 'message',
        content: `Here you go:\n\`\`\`json\n${proposal('greet-good', 'echo hello > greeting.txt', 'grep -qx hello greeting.txt')}\n\`\`\``,
      },
      { kind: 'message', content: proposal('greet-broken', 'echo bye > greeting.txt', 'grep -qx hello greeting.txt') },
      { kind: 'message', content: proposal('greet-trivial', 'echo hello > greeting.txt', 'test -d /app') },
      { kind: 'message', content: 'I would rather not write a task today.' },
      { kind: 'message', content: JSON.stringify({ id: 'no-toml', files: [{ path: 'instruction.md', text: 'x' }] }) },
    );
    const out = join(tmp.path, 'llm.jsonl');
    const r = await t1lab([
      'tasks',
      'synth',
      '--llm',
      `openai:${fixture.baseUrl}#fixture-model`,
      '--seeds',
      EXAMPLES,
      '--count',
      '5',
      '--out',
      out,
      '--audit-cache',
      join(tmp.path, 'llm-cache.jsonl'),
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const s = parseJsonOutput<Summary>(r);
    expect(s.count).toBe(1);
    expect(s.rejected).toEqual({ 'broken-oracle': 1, trivial: 1, malformed: 1, invalid: 1 });
    expect(JSON.parse(readFileSync(out, 'utf8')).id).toBe('greet-good');
    expect(fixture.requests).toHaveLength(5);
    expect(fixture.requests[0]!.body.model).toBe('fixture-model');
    expect(fixture.requests[0]!.body.messages.at(-1)!.content).toContain('"format":"t1lab.task.v1"');
  }, 150_000);
});

describe('t1lab tasks stats / rebalance / overlap', () => {
  it('reports the mix, rebalances toward TB2, and measures overlap (planted near-copy: exit 1)', async () => {
    const train = join(tmp.path, 'train.jsonl');
    const suite = join(tmp.path, 'suite.jsonl');
    const held = CORE_FAMILIES.filter((f) => f.heldOut)
      .map((f) => f.name)
      .join(',');
    expect((await t1lab(['tasks', 'synth', '--out', train, '--count', '200', '--seed', '1'])).code).toBe(0);
    expect(
      (
        await t1lab([
          'tasks',
          'synth',
          '--out',
          suite,
          '--count',
          '60',
          '--seed',
          '1',
          '--split',
          'eval',
          '--families',
          held,
        ])
      ).code,
    ).toBe(0);

    const stats = await t1lab(['tasks', 'stats', train, '--json']);
    expect(stats.code, stats.stderr).toBe(0);
    const st = parseJsonOutput<{
      count: number;
      categories: Record<string, number>;
      difficulties: Record<string, number>;
      families: Record<string, number>;
      top5Share: number;
    }>(stats);
    expect(st.count).toBe(200);
    expect(st.top5Share).toBeGreaterThan(0);
    expect(st.top5Share).toBeLessThanOrEqual(1);

    const sub = join(tmp.path, 'sub.jsonl');
    const rb = await t1lab(['tasks', 'rebalance', suite, '--target', 'tb2', '--count', '20', '--out', sub, '--json']);
    expect(rb.code, rb.stderr).toBe(0);
    expect(parseJsonOutput<{ count: number }>(rb).count).toBe(20);
    expect(readFileSync(sub, 'utf8').trim().split('\n')).toHaveLength(20);
    writeFileSync(join(tmp.path, 'bad-target.json'), '{"categories": {"security": -1}}');
    const bad = await t1lab(['tasks', 'rebalance', suite, '--target', join(tmp.path, 'bad-target.json'), '--out', sub]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad-target.json: categories.security/);

    const clean = await t1lab(['tasks', 'overlap', '--train', train, '--eval', suite, '--json']);
    expect(clean.code, clean.stderr).toBe(0);
    const c = parseJsonOutput<{ pairs: number; maxSimilarity: number; flagged: unknown[]; verdict: string }>(clean);
    expect(c).toMatchObject({ pairs: 200 * 60, verdict: 'disjoint', flagged: [] });

    // Plant a near-copy of one suite task (new id, one word of its instruction changed) in the training pack.
    const victim = JSON.parse(readFileSync(suite, 'utf8').split('\n')[7]!) as {
      id: string;
      files: { path: string; text: string }[];
    };
    const copy = {
      ...victim,
      id: 'innocent-looking-task',
      files: victim.files.map((f) =>
        f.path === 'instruction.md' ? { ...f, text: f.text.replace(/\bthe\b/, 'a') } : f,
      ),
    };
    appendFileSync(train, `${JSON.stringify(copy)}\n`);
    const dirty = await t1lab(['tasks', 'overlap', '--train', train, '--eval', suite, '--json']);
    expect(dirty.code).toBe(1);
    const d = parseJsonOutput<{
      flagged: { train: string; eval: string; kind: string; similarity: number }[];
      verdict: string;
    }>(dirty);
    expect(d.verdict).toBe('overlap');
    expect(
      d.flagged
        .filter((f) => f.train === 'innocent-looking-task' && f.eval === victim.id)
        .map((f) => f.kind)
        .sort(),
    ).toEqual(['files', 'instruction', 'solution']);
    expect(d.flagged.every((f) => f.train === 'innocent-looking-task')).toBe(true);

    // Any suite works on the eval side, Terminal-Bench folders included.
    const tb = await t1lab([
      'tasks',
      'overlap',
      '--train',
      suite,
      '--eval',
      join(REPO_ROOT, 'test/fixtures/tb-import'),
      '--json',
    ]);
    expect(tb.code, tb.stderr).toBe(0);
    expect(parseJsonOutput<{ pairs: number; verdict: string }>(tb)).toMatchObject({ verdict: 'disjoint' });
    expect(parseJsonOutput<{ pairs: number }>(tb).pairs).toBeGreaterThanOrEqual(60 * 2);
  }, 120_000);
});
