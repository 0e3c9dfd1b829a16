/**
 * The compare view with three runs: each pair is named by its own letters (C vs A says C − A, not B − A),
 * every pair has its summary and change column, a task whose passing assertions moved is a change even when
 * its resolved rate did not, rows with the largest changes come first, and each run's cell links to its episode.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TRAJECTORY_SCHEMA, type Trajectory } from '../../electron/domain/trajectory';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { writeRunFolder } from '../helpers/runs';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
const runs = join(data, 'runs');
const LONG = (step: number) => `20261201-12000${step}-eval-checkpoints-step-000000${step}-ppo-nano-rl-dense-aa1${step}`;

/** A trajectory with no turns: enough for the episode viewer's head (instruction, outcome). */
function writeTrajectory(dir: string, run: string): void {
  const t: Trajectory = {
    schema: TRAJECTORY_SCHEMA,
    id: `${run}-t1-0`,
    task: { id: 't1', category: 'security', difficulty: 'medium' },
    policy: { id: 'replay:fixture', protocol: 'hermes', model: null },
    startedAt: '2026-12-01T00:00:00Z',
    endedAt: '2026-12-01T00:00:01Z',
    durationMs: 1000,
    system: 'system prompt',
    instruction: `instruction as ${run} saw it`,
    turns: [],
    stopReason: 'submitted',
    error: null,
    contextEvents: [],
    ledger: null,
    verifier: null,
    reward: null,
    resolved: false,
    tokens: { prompt: 0, completion: 0 },
    costUsd: null,
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'trajectory.json'), JSON.stringify(t));
}

beforeAll(async () => {
  const task = (i: number, resolved: boolean, dense?: number) => ({
    task: `t${i}`,
    category: i % 2 ? 'security' : 'debugging',
    resolved: [resolved],
    ...(dense !== undefined ? { dense: [dense] } : {}),
  });
  // A: t0 and t3 resolved. B: the same tasks resolved, but t1 passes one more assertion.
  // C: gains t2, loses t3, and t4 passes one more assertion.
  await writeRunFolder(runs, 'base', [
    task(0, true),
    task(1, false),
    task(2, false),
    task(3, true),
    task(4, false),
    task(5, false),
  ]);
  await writeRunFolder(runs, 'b-run', [
    task(0, true),
    task(1, false, 2),
    task(2, false),
    task(3, true),
    task(4, false),
    task(5, false),
  ]);
  await writeRunFolder(runs, 'c-run', [
    task(0, true),
    task(1, false),
    task(2, true),
    task(3, false),
    task(4, false, 2),
    task(5, false),
  ]);
  // Runs as the lab names them: long ids and titles (checkpoint evaluations on a suite), one left to pick.
  for (const step of [1, 2, 3, 4])
    await writeRunFolder(runs, LONG(step), [task(0, step > 1), task(1, step > 2), task(2, false, step)], {
      policy: `onnx:${data}/training/20261201-100000-ppo-nano-rl-dense-r3-on-tito-exact/checkpoints/step-000000${step}`,
      suite: `${data}/tasks/suites/id-nano-heldout-with-a-long-name.jsonl`,
    });
  // t1's first episode in A, B and C has a trajectory (what the side-by-side view shows).
  for (const run of ['base', 'b-run', 'c-run']) writeTrajectory(join(runs, run, 'episodes', 't1', '0'), run);
  ({ serve, browser, page } = await openLabInChromium(data, { viewport: { width: 1024, height: 900 } }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

describe('Compare view with three runs', () => {
  test('each pair is labelled with its own letters and summarised', async () => {
    await page.goto(`${serve.url}#/compare/base/b-run/c-run`);
    await expect.poll(() => page.getByTestId('comparison').count(), { timeout: 20_000 }).toBe(2);
    const c = page.locator('[data-testid="run-compare"][data-letter="C"]');
    expect(await c.locator('h2').innerText()).toBe('C vs A: paired tests');
    const cText = await c.getByTestId('comparison').innerText();
    expect(cText).toContain('C · c-run');
    expect(cText).toContain('C − A');
    expect(cText).toContain('reward C − A');
    expect(cText).not.toContain('B − A');
    expect(cText).not.toMatch(/\bB · /);

    const summaries = await page.getByTestId('pair-summary').allInnerTexts();
    expect(summaries).toEqual([
      'B vs A: gains 0 task(s), loses 0; reward up on 1, down on 0; 5 unchanged; 0 only in A, 0 only in B.',
      'C vs A: gains 1 task(s), loses 1; reward up on 1, down on 0; 3 unchanged; 0 only in A, 0 only in C.',
    ]);
    expect(await page.getByTestId('change-header').allInnerTexts()).toEqual(['change (B vs A)', 'change (C vs A)']);
  });

  test('a moved reward is a change; rows sort by resolved change, then reward change', async () => {
    const b = page.locator('[data-testid="run-compare"][data-letter="B"]');
    const bText = await b.getByTestId('comparison').innerText();
    expect(bText).toMatch(/reward B − A\s+\+0\.17/);
    expect(bText).toMatch(/changed tasks\s+t1 reward \+1\.00/);

    const rows = page.getByTestId('task-diff').locator('tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-task')))).toEqual([
      't2',
      't3',
      't1',
      't4',
      't0',
      't5',
    ]);
    const t1 = page.locator('[data-testid="task-diff"] tr[data-task="t1"]');
    expect(await t1.getAttribute('data-changes')).toBe('reward-up,same');
    expect(await t1.getByTestId('task-change').allInnerTexts()).toEqual(['reward +1.00', 'same']);
    const t3 = page.locator('[data-testid="task-diff"] tr[data-task="t3"]');
    expect(await t3.getByTestId('task-change').allInnerTexts()).toEqual(['same', 'lost 100%→0% · reward -2.00']);
  });

  test("each run's cell opens its own episode of the task", async () => {
    const t1 = page.locator('[data-testid="task-diff"] tr[data-task="t1"]');
    const hrefs = await t1.getByTestId('task-episode').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs).toEqual(['#/runs/base/t1%400', '#/runs/b-run/t1%400', '#/runs/c-run/t1%400']);
    await t1.locator('td[data-run="b-run"] a').click();
    await page.getByTestId('run-detail').waitFor();
    expect(decodeURIComponent(page.url())).toContain('#/runs/b-run/t1@0');
  });

  test('a task opens every run’s episode of it side by side, in the address, with no sideways scroll', async () => {
    await page.goto(`${serve.url}#/compare/base/b-run/c-run`);
    const t1 = page.locator('[data-testid="task-diff"] tr[data-task="t1"]');
    await t1.waitFor({ timeout: 20_000 });
    await t1.getByTestId('side-by-side-link').click();
    const side = page.getByTestId('side-by-side');
    await side.waitFor();
    expect(decodeURIComponent(page.url())).toContain('#/compare/base/b-run/c-run/task=t1');
    expect(await side.getAttribute('data-task')).toBe('t1');
    const columns = side.getByTestId('side-by-side-run');
    await expect
      .poll(() => columns.evaluateAll((cs) => cs.map((c) => [c.getAttribute('data-run'), c.getAttribute('data-key')])))
      .toEqual([
        ['base', 't1@0'],
        ['b-run', 't1@0'],
        ['c-run', 't1@0'],
      ]);
    // Each column shows its own run's episode (the instruction its trajectory holds).
    for (const run of ['base', 'b-run', 'c-run'])
      await expect
        .poll(() => side.locator(`[data-testid="side-by-side-run"][data-run="${run}"]`).textContent())
        .toContain(`instruction as ${run} saw it`);
    expect(
      (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number,
    ).toBeLessThanOrEqual(0);
    // A reload keeps it; close goes back to the runs alone.
    await page.reload();
    await side.waitFor({ timeout: 20_000 });
    await side.getByTestId('side-by-side-close').click();
    await expect.poll(() => decodeURIComponent(page.url())).toMatch(/#\/compare\/base\/b-run\/c-run$/);
    expect(await side.count()).toBe(0);
  });
});

describe('Compare view at 1024 px', () => {
  test('nothing scrolls sideways and the run picker is whole', async () => {
    await page.goto(`${serve.url}#/compare/${LONG(1)}/${LONG(2)}/${LONG(3)}`);
    await expect.poll(() => page.getByTestId('comparison').count(), { timeout: 20_000 }).toBe(2);
    await page.getByTestId('task-diff').waitFor();
    await expect.poll(() => page.getByTestId('compare-add').locator('option').count()).toBeGreaterThan(1);
    const [docScroll, docClient, contentScroll, contentClient, contentRight] = (await page.evaluate(
      "[document.documentElement.scrollWidth, document.documentElement.clientWidth, document.querySelector('.content').scrollWidth, document.querySelector('.content').clientWidth, document.querySelector('.content').getBoundingClientRect().right]",
    )) as number[];
    const wide = (await page.evaluate(
      "[...document.querySelectorAll('.content *')].filter((e) => e.getBoundingClientRect().right > document.querySelector('.content').getBoundingClientRect().right + 1).slice(0, 6).map((e) => e.tagName + '.' + e.className + '[' + (e.getAttribute('data-testid') ?? '') + '] ' + Math.round(e.getBoundingClientRect().right)).join(' ')",
    )) as string;
    expect(docScroll, wide).toBeLessThanOrEqual(docClient!);
    expect(contentScroll, wide).toBeLessThanOrEqual(contentClient!);
    const picker = await page.getByTestId('compare-add').boundingBox();
    expect(picker!.x).toBeGreaterThanOrEqual(0);
    expect(picker!.x + picker!.width).toBeLessThanOrEqual(contentRight!);
  });
});
