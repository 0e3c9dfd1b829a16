/**
 * Experiment tracking on the Runs page in Chromium, with the CLI on the same folders: runs get a name,
 * tags and notes (meta.json) from the page and from `t1lab runs rename|tag|note`, the table shows results
 * columns, sorts and filters them and holds at 1024 px, a checkpoint eval shows its training stage and
 * step, and a run is deleted (after a confirmation) but never while it runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { parseJsonOutput, runT1lab } from '../helpers/cli';
import { writeRunFolder } from '../helpers/runs';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';

/** The page waits on the host, and the host on a loaded machine: poll for longer than vitest's 1 s default. */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

let serve: ServeProcess;
let browser: Browser;
let page: Page;
let sleeper: ChildProcess;
const home = makeTempDir();
const data = join(home.path, 'data');
const runs = join(data, 'runs');
const LONG_ID = '20261201-101500-eval-models-nano-rl-dense-with-a-long-tail-b6d2';
const CKPT_ID = '20261201-120000-eval-checkpoints-step-0000003-aa11';
const cli = (args: string[], input?: string) => runT1lab(args, { env: { T1LAB_HOME: data }, input });

function setPolicy(id: string, policy: string): void {
  const file = join(runs, id, 'run.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as { config: { policy: string } };
  manifest.config.policy = policy;
  writeFileSync(file, JSON.stringify(manifest));
}

beforeAll(async () => {
  const tasks = Array.from({ length: 6 }, (_, i) => `task-${i}`);
  await writeRunFolder(
    runs,
    'weak',
    tasks.map((task, i) => ({ task, resolved: [i < 1] })),
  );
  await writeRunFolder(
    runs,
    LONG_ID,
    tasks.map((task, i) => ({ task, resolved: [i < 5] })),
  );
  setPolicy(LONG_ID, 'onnx:/home/me/.local/share/t1-lab/models/nano-rl-dense');
  // A checkpoint of a training run, evaluated: its row names the stage and step.
  const training = join(data, 'training', '20261201-110000-ppo-dense');
  mkdirSync(join(training, 'checkpoints', 'step-0000003'), { recursive: true });
  writeFileSync(
    join(training, 'run.json'),
    JSON.stringify({ stage: 'ppo', createdAt: '2026-12-01T11:00:00Z', config: {} }),
  );
  writeFileSync(join(training, 'status.json'), JSON.stringify({ state: 'completed', step: 3, totalSteps: 3 }));
  await writeRunFolder(
    runs,
    CKPT_ID,
    tasks.map((task, i) => ({ task, resolved: [i < 3] })),
  );
  setPolicy(CKPT_ID, `onnx:${join(training, 'checkpoints', 'step-0000003')}`);
  await writeRunFolder(
    runs,
    'busy',
    tasks.map((task) => ({ task, resolved: [true] })),
  );
  // An evaluation at work on `busy`: a live process named in its running.json.
  sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
  writeFileSync(
    join(runs, 'busy', 'running.json'),
    JSON.stringify({ pid: sleeper.pid, startedAt: new Date().toISOString() }),
  );
  ({ serve, browser, page } = await openLabInChromium(data, { viewport: { width: 1024, height: 900 } }));
});

afterAll(async () => {
  sleeper?.kill();
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const row = (id: string) => page.locator(`[data-testid="run-row"][data-run="${id}"]`);

describe('Runs: names, tags, notes, columns, filter, delete', () => {
  test('the table shows readable titles, results columns and the checkpoint lineage, and holds at 1024 px', async () => {
    await page.goto(`${serve.url}#/runs`);
    await row(LONG_ID).waitFor();
    // A readable title, not the slug cut mid-word.
    expect(await row(LONG_ID).getByTestId('run-title').textContent()).toBe('nano-rl-dense on suite');
    expect(await row(CKPT_ID).getByTestId('run-title').textContent()).toBe('20261201-110000-ppo-dense step 3 on suite');
    expect(await row(CKPT_ID).locator('td[data-key="stage"]').textContent()).toBe('ppo · 3');
    expect(await row(LONG_ID).locator('td[data-key="resolved"]').textContent()).toBe('83.3%');
    // Dense reward: 3 for a resolved fixture episode, 1 otherwise -> (5*3 + 1)/6.
    expect(await row(LONG_ID).locator('td[data-key="reward"]').textContent()).toBe('2.67');
    expect(await row(LONG_ID).locator('td[data-key="turns"]').textContent()).toBe('2.0');
    expect(await row(LONG_ID).locator('td[data-key="duration"]').textContent()).toBe('1s');
    // The id stays on one line (cut with an ellipsis), and nothing scrolls sideways.
    const id = row(LONG_ID).getByTestId('run-id');
    const box = await id.boundingBox();
    expect(box!.height).toBeLessThan(20);
    const overflow = (await page.evaluate(
      "[...document.querySelectorAll('.content, .runs-list-pane, html')].map((e) => e.scrollWidth - e.clientWidth)",
    )) as number[];
    for (const o of overflow) expect(o).toBeLessThanOrEqual(0);
    // Sorting by reward, best first.
    await page.locator('th[data-sort="reward"]').click();
    await page.locator('th[data-sort="reward"]').click();
    const order = await page.getByTestId('run-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run')));
    expect(order.slice(0, 2)).toEqual(['busy', LONG_ID]);
    expect(order.at(-1)).toBe('weak');
    // Settings columns.
    await page.getByTestId('runs-columns').selectOption('settings');
    expect(await row(LONG_ID).locator('td[data-key="attempts"]').textContent()).toBe('1');
    expect(await row(LONG_ID).locator('td[data-key="maxTurns"]').textContent()).toBe('300');
    await page.getByTestId('runs-columns').selectOption('results');
  });

  test('names, tags and annotates a run from the page; the CLI reads and edits the same meta.json', async () => {
    await row('weak').click();
    const meta = page.getByTestId('run-meta');
    await meta.waitFor();
    await meta.locator('input[name="run-name"]').fill('SFT baseline');
    await meta.locator('input[name="run-tags"]').fill('baseline sft');
    await meta.locator('textarea[name="run-notes"]').fill('reward = fraction');
    await page.getByTestId('run-meta-save').click();
    await poll(() => row('weak').getByTestId('run-title').textContent()).toBe('SFT baseline');
    const onDisk = JSON.parse(readFileSync(join(runs, 'weak', 'meta.json'), 'utf8'));
    expect(onDisk).toMatchObject({
      schema: 't1lab.run-meta/1',
      name: 'SFT baseline',
      tags: ['baseline', 'sft'],
      notes: 'reward = fraction',
    });

    const listed = parseJsonOutput<{ id: string; name: string | null; tags: string[] }[]>(
      await cli(['runs', 'list', '--tag', 'baseline', '--json']),
    );
    expect(listed.map((r) => [r.id, r.name])).toEqual([['weak', 'SFT baseline']]);
    const tagged = await cli(['runs', 'tag', LONG_ID, 'dense', 'r3:on', '--json']);
    expect(tagged.code).toBe(0);
    expect(parseJsonOutput<{ kind: string; meta: { tags: string[] } }>(tagged)).toMatchObject({
      kind: 'eval',
      meta: { tags: ['dense', 'r3:on'] },
    });
    expect((await cli(['runs', 'rename', LONG_ID, 'RL dense', '--json'])).code).toBe(0);
    expect((await cli(['runs', 'note', LONG_ID, 'second try', '--append', '--json'])).code).toBe(0);
    const bad = await cli(['runs', 'tag', LONG_ID, 'has space']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("tag 'has space'");
    // A training run has a meta.json too.
    expect(
      parseJsonOutput<{ kind: string }>(
        await cli(['runs', 'rename', '20261201-110000-ppo-dense', 'PPO dense', '--json']),
      ).kind,
    ).toBe('training');

    // The page shows what the CLI wrote at its next refresh.
    await expect.poll(() => row(LONG_ID).getByTestId('run-title').textContent(), { timeout: 15_000 }).toBe('RL dense');
    expect(await row(LONG_ID).getByTestId('tag-chip').allTextContents()).toEqual(['dense', 'r3:on']);
  });

  test('filters by tag (from a chip), by state and by words', async () => {
    await row(LONG_ID).getByTestId('tag-chip').first().click();
    expect(await page.getByTestId('runs-filter').inputValue()).toBe('tag:dense');
    await poll(() => page.getByTestId('run-row').count()).toBe(1);
    await page.getByTestId('runs-filter').fill('state:running');
    await poll(() =>
      page.getByTestId('run-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run'))),
    ).toEqual(['busy']);
    await page.getByTestId('runs-filter').fill('baseline');
    await poll(() =>
      page.getByTestId('run-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run'))),
    ).toEqual(['weak']);
    await page.getByTestId('runs-filter').fill('');
    await poll(() => page.getByTestId('run-row').count()).toBe(4);
  });

  test('deletes a run after a confirmation, and never a running one', async () => {
    // The CLI asks first, and a "no" keeps the run.
    const no = await cli(['runs', 'rm', CKPT_ID], 'n\n');
    expect(no.code).toBe(1);
    expect(existsSync(join(runs, CKPT_ID))).toBe(true);
    const busy = await cli(['runs', 'rm', 'busy', '--yes', '--json']);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain("run 'busy' is running");
    expect(existsSync(join(runs, 'busy'))).toBe(true);
    const removed = await cli(['runs', 'rm', CKPT_ID, '--yes', '--json']);
    expect(parseJsonOutput(removed)).toMatchObject({ runId: CKPT_ID, kind: 'eval', removed: true });
    expect(existsSync(join(runs, CKPT_ID))).toBe(false);

    // The page: a running run offers no delete; another one asks, then goes.
    await row('busy').click();
    await poll(() => page.getByTestId('run-delete').isDisabled()).toBe(true);
    await row('weak').click();
    await page.getByTestId('run-delete').click();
    await page.getByTestId('run-delete-confirm').click();
    await poll(() => row('weak').count()).toBe(0);
    expect(existsSync(join(runs, 'weak'))).toBe(false);
  });

  test('a training run is named and tagged on the Training page too', async () => {
    const training = '20261201-110000-ppo-dense';
    await page.goto(`${serve.url}#/training/${training}`);
    const row = page.locator(`[data-testid="training-run-row"][data-run="${training}"]`);
    // Named from the CLI above.
    await poll(() => row.getByTestId('training-run-name').textContent()).toBe('PPO dense');
    const meta = page.getByTestId('run-meta');
    await meta.locator('input[name="run-tags"]').fill('ppo dense');
    await page.getByTestId('run-meta-save').click();
    await poll(() => JSON.parse(readFileSync(join(data, 'training', training, 'meta.json'), 'utf8')).tags).toEqual([
      'ppo',
      'dense',
    ]);
    await poll(() => row.innerText()).toContain('ppo · dense');
  });
});
