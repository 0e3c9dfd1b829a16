/**
 * `t1lab runs rename|tag|note|rm` take a run folder's path as well as an id: a run made with
 * `t1lab eval --out DIR` outside the data folder can be named, tagged, annotated and removed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseJsonOutput, REPO_ROOT, runT1lab } from '../../helpers/cli';
import { writeRunFolder } from '../../helpers/runs';
import { makeTempDir } from '../../helpers/tmp';

const home = makeTempDir();
const env = { T1LAB_HOME: join(home.path, 'data') };
const elsewhere = join(home.path, 'elsewhere');
let outside: string;

beforeAll(async () => {
  outside = await writeRunFolder(elsewhere, 'my-eval', [{ task: 't0', resolved: [true] }]);
  await writeRunFolder(join(env.T1LAB_HOME, 'runs'), 'by-id', [{ task: 't0', resolved: [false] }]);
});

afterAll(() => home.remove());

const meta = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as { name: string | null; tags: string[]; notes: string };

describe('t1lab runs with a run folder path', () => {
  test('rename, tag and note a run outside the data folder by its absolute or relative path', async () => {
    const renamed = await runT1lab(['runs', 'rename', outside, 'baseline', '--json'], { env });
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(parseJsonOutput<{ runId: string; kind: string; dir: string }>(renamed)).toMatchObject({
      runId: 'my-eval',
      kind: 'eval',
      dir: outside,
    });
    const tagged = await runT1lab(['runs', 'tag', relative(REPO_ROOT, outside), 'greedy'], { env });
    expect(tagged.code, tagged.stderr).toBe(0);
    const noted = await runT1lab(['runs', 'note', `${outside}/`, 'first try'], { env });
    expect(noted.code, noted.stderr).toBe(0);
    // A bare name is an id of the data folder, never a folder of the current directory.
    const bare = await runT1lab(['runs', 'note', 'my-eval', 'x'], { env });
    expect(bare.stderr).toContain("no run 'my-eval'");
    expect(meta(outside)).toMatchObject({ name: 'baseline', tags: ['greedy'], notes: 'first try' });
  });

  test('an id still names a run of the data folder, and a path that is no run folder is refused', async () => {
    const byId = await runT1lab(['runs', 'tag', 'by-id', 'x'], { env });
    expect(byId.code, byId.stderr).toBe(0);
    expect(meta(join(env.T1LAB_HOME, 'runs', 'by-id')).tags).toEqual(['x']);
    const wrong = await runT1lab(['runs', 'tag', home.path, 'x'], { env });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('is not a run folder');
  });

  test('--help says a path is taken, and rm removes the folder by its path', async () => {
    const help = await runT1lab(['runs', 'rm', '--help'], { env });
    expect(help.stdout).toContain('run folder path');
    const removed = await runT1lab(['runs', 'rm', outside, '--yes'], { env });
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(outside)).toBe(false);
  });
});
