/**
 * The importer's bugs found with real Terminal-Bench tasks, one fixture each (test/fixtures/tb-bugs, written
 * for these tests, Harbor and TB1 layouts): how each imports, then every convertible one resolved by the
 * oracle in the sandbox and every other one in the eval's denominator with its reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodeRecord, EvalSummary } from '../../../electron/domain/runs';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { makeTempDir } from '../../helpers/tmp';
import { FIXTURES } from './helpers';

const BUGS = join(FIXTURES, '..', 'tb-bugs');
let tmp: { path: string; remove(): void };
beforeAll(() => (tmp = makeTempDir('t1lab-import-bugs-')));
afterAll(() => tmp.remove());

interface Imported {
  id: string;
  runtime: { kind: string; reason?: string };
  notes: string[];
}

describe('t1lab tasks import-tb on the bug fixtures', () => {
  it('imports each the way its environment allows, then the oracle resolves every sandbox task and the rest are counted with the reason', async () => {
    const dest = join(tmp.path, 'imported');
    const r = await runT1lab(['tasks', 'import-tb', BUGS, dest, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const byId = Object.fromEntries(parseJsonOutput<{ imported: Imported[] }>(r).imported.map((t) => [t.id, t]));
    const toml = (id: string) => readFileSync(join(dest, id, 'task.toml'), 'utf8');

    // 1 + 2: a docker_image with a Dockerfile that converts stays a sandbox task (image kept); python images give `python`.
    expect(byId['h1-image-and-dockerfile']?.runtime).toEqual({ kind: 'sandbox' });
    expect(toml('h1-image-and-dockerfile')).toMatch(/docker_image = "example\/h1-image-and-dockerfile:20251031"/);
    expect(toml('h1-image-and-dockerfile')).toMatch(/python = "\/usr\/bin\/python3"/);
    // 3: test.sh's other steps are kept (and said so), not replaced by a bare pytest call.
    expect(byId['h3-test-steps']?.notes.join('\n')).toMatch(
      /without its 4 install step\(s\).*keeps its 4 other step\(s\) in order/,
    );
    // 4 and 5: Dockerfile order kept; a later WORKDIR is the start folder.
    expect(byId['tb1-order']?.notes.join('\n')).toMatch(/copies are made by setup.sh in Dockerfile order/);
    expect(toml('h5-later-workdir')).toMatch(/start_dir = "\/app\/personal-site"/);
    // 6: state outside the workspace at build time -> the container, naming each line.
    expect(byId['h6-root-state']?.runtime.reason).toMatch(
      /line 3: state outside the workspace at build time \(git config --global.*line 4: .*\/data/,
    );
    // 7: network in a script RUN calls, and in solve.sh (which also turns the task's network on).
    expect(byId['tb1-network-script']?.runtime.reason).toBe(
      'Dockerfile line 4: runs setup-env.sh, which fetches from the network (pip install)',
    );
    expect(byId['h7-solve-network']?.runtime.reason).toBe('solution/solve.sh fetches from the network (pip install)');
    expect(toml('h7-solve-network')).toMatch(/allow_internet = true/);
    // 8: local modules are not missing packages; every blocker is reported, not only the first.
    expect(byId['h8-local-modules']?.runtime).toEqual({ kind: 'sandbox' });
    expect(byId['h8-all-blockers']?.runtime.reason).toMatch(
      /lacks: r-base-core; .*lacks: torch; solution\/solve.sh fetches from the network/,
    );

    // 10: every task of the suite is in the denominator; those that cannot run are errors with the reason.
    const out = join(tmp.path, 'run');
    const e = await runT1lab(
      [
        'eval',
        '--suite',
        dest,
        '--policy',
        'oracle',
        '--backend',
        'bubblewrap',
        '--concurrency',
        '2',
        '--out',
        out,
        '--json',
      ],
      { timeoutMs: 180_000 },
    );
    const summary = parseJsonOutput<EvalSummary>(e);
    expect(summary.tasks).toBe(9);
    expect(summary.episodes).toBe(9);
    const records = readFileSync(join(out, 'episodes.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as EpisodeRecord);
    // Named first, with each unresolved episode's reason: a rate alone does not say which task failed, or why.
    const unresolved = JSON.stringify(
      records
        .filter((x) => !x.resolved)
        .map(({ taskId, stopReason, error, reward }) => ({ taskId, stopReason, error, reward })),
      null,
      1,
    );
    expect(
      records
        .filter((x) => x.resolved)
        .map((x) => x.taskId)
        .sort(),
      unresolved,
    ).toEqual(['h1-image-and-dockerfile', 'h3-test-steps', 'h5-later-workdir', 'h8-local-modules', 'tb1-order']);
    expect(summary.resolvedRate).toBeCloseTo(5 / 9);
    expect(summary.errors.sandbox).toBe(4);
    expect(summary.skipped?.map((s) => s.task).sort()).toEqual([
      'h6-root-state',
      'h7-solve-network',
      'h8-all-blockers',
      'tb1-network-script',
    ]);
    for (const s of summary.skipped ?? []) expect(s.reason).toMatch(/needs a container/);
  }, 240_000);
});
