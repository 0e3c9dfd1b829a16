/** The audit, for real: deliberately broken tasks get their verdicts; every built-in example is `ok`. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditResult } from '../../../electron/domain/tasks';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { makeTempDir } from '../../helpers/tmp';
import { EXAMPLES, FIXTURES } from './helpers';

const keep = makeTempDir('t1lab-audit-keep-');
afterAll(() => keep.remove());

describe('t1lab tasks audit', () => {
  it('gives each deliberately broken task its verdict and reason', async () => {
    const r = await runT1lab(
      ['tasks', 'audit', join(FIXTURES, 'broken'), '--json', '--concurrency', '2', '--keep', keep.path],
      { timeoutMs: 240_000 },
    );
    expect(r.code).toBe(1);
    const results = parseJsonOutput<AuditResult[]>(r);
    for (const a of results)
      expect(Object.keys(a), a.id).toEqual([
        'id',
        'oracle',
        'noop',
        'flaky',
        'verdict',
        'reason',
        ...(a.guards ? ['guards'] : []),
      ]);
    const byId = Object.fromEntries(results.map((a) => [a.id, a]));
    expect(byId['broken-oracle']).toMatchObject({
      verdict: 'broken-oracle',
      oracle: { passed: 1, total: 2 },
      noop: { passed: 0, total: 2 },
      reason: expect.stringContaining("'color is blue'"),
    });
    // A guard assertion a no-op passes is a warning; trivial = the no-op run resolves the task.
    expect(byId['trivial-assertion']).toMatchObject({
      verdict: 'ok',
      oracle: { passed: 2, total: 2 },
      noop: { passed: 1, total: 2 },
      guards: ['workdir exists'],
      reason: expect.stringContaining("guard assertion(s) pass without work: 'workdir exists'"),
    });
    expect(byId['noop-resolves']).toMatchObject({
      verdict: 'trivial',
      noop: { passed: 2, total: 2 },
      reason: expect.stringContaining('the no-op agent resolves the task'),
    });
    expect(byId['flaky-oracle']).toMatchObject({
      verdict: 'flaky',
      flaky: true,
      oracle: { passed: 1, total: 1 },
      reason: expect.stringContaining("'n is 1'"),
    });
    expect(byId['no-oracle']).toMatchObject({ verdict: 'no-oracle', oracle: null, noop: { passed: 0, total: 1 } });
    expect(byId['malformed-toml']).toMatchObject({
      verdict: 'invalid',
      oracle: null,
      noop: null,
      reason: expect.stringMatching(/^task\.toml: malformed TOML at line 3/),
    });
    expect(byId['unknown-difficulty']).toMatchObject({
      verdict: 'invalid',
      reason: expect.stringContaining('metadata.difficulty'),
    });
    expect(byId['verifier-timeout']).toMatchObject({
      verdict: 'error',
      reason: expect.stringMatching(/verifier failed on the oracle run: tests\/test.sh timed out/),
    });
    expect(byId['collection-error']).toMatchObject({
      verdict: 'error',
      reason: expect.stringMatching(/pytest exited with 2/),
    });
    expect(byId['container-image']).toMatchObject({
      verdict: 'error',
      reason: expect.stringMatching(/needs a container/),
    });
    expect(byId['broken-oracle']?.guards).toBeUndefined();
    expect(byId['setup-fails']).toMatchObject({
      verdict: 'error',
      reason: expect.stringMatching(/setup.sh of 'setup-fails' failed \(exit 3\)/),
    });
    expect(r.stderr).toMatch(/audit: \d+\/9/);
    // --keep leaves each run's workspace and logs for the task author.
    expect(readFileSync(join(keep.path, 'broken-oracle/1-oracle/color.txt'), 'utf8')).toBe('green\n');
    expect(readFileSync(join(keep.path, 'broken-oracle/1-oracle.verifier/steps.log'), 'utf8')).toMatch(
      /## assertion: color is blue \(exit 1/,
    );
  }, 300_000);

  it('passes every built-in example with verdict ok', async () => {
    const r = await runT1lab(['tasks', 'audit', EXAMPLES, '--concurrency', '2'], { timeoutMs: 900_000 });
    expect(r.stdout, r.stderr).toMatch(/\n18 task\(s\): 18 ok\n/);
    expect(r.code).toBe(0);
    for (const line of r.stdout.split('\n').slice(1, 19))
      expect(line).toMatch(/^\S+\s+ok\s+(\d+)\/\1\s+0\/\1\s+no\s*$/);
  }, 900_000);
});
