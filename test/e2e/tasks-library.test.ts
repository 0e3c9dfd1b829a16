/**
 * The Tasks page as the lab's whole library, in Chromium at 1024 px: the committed suites are listed beside
 * the examples, a folder outside the lab is added with "add a source", each task shows its pass rate over the
 * lab's evaluation runs (sortable) and its history, and no column is clipped. `t1lab tasks sources --json`
 * lists the same sources. Needs `npm run build`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseJsonOutput, runT1lab } from '../helpers/cli';
import { loadTaskSource } from '../../electron/lab/tasks';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { writeRunFolder } from '../helpers/runs';
import type { ServeProcess } from '../helpers/serve';
import { writeTask } from '../helpers/tasks';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir('t1lab-e2e-library-');
const data = join(home.path, 'data');
const extra = join(home.path, 'my-tasks');
const SUITES = join(process.cwd(), 'tasks', 'suites');
const suiteCounts: Record<string, number> = {};
let total = 0;
let tracked = '';

beforeAll(async () => {
  for (const name of readdirSync(SUITES)
    .filter((n) => n.endsWith('.jsonl'))
    .sort())
    suiteCounts[`suites/${name.replace(/\.jsonl$/, '')}`] = (await loadTaskSource(join(SUITES, name))).tasks.length;
  total = 18 + Object.values(suiteCounts).reduce((a, b) => a + b, 0);
  tracked = (await loadTaskSource(join(SUITES, 'id-nano.jsonl'))).tasks[0]!.id;
  // Two evaluations of a suite task: resolved in 2 of its 3 episodes; another task never resolved.
  await writeRunFolder(join(data, 'runs'), '20261201-080000-eval-a', [
    { task: tracked, resolved: [true, false] },
    { task: 'lru-cache', resolved: [false, false] },
  ]);
  await writeRunFolder(join(data, 'runs'), '20261201-090000-eval-b', [{ task: tracked, resolved: [true] }]);
  writeTask(extra, {
    id: 'added-one',
    instruction: 'Write ok into ok.txt.',
    assertions: { ok: 'grep -q ok ok.txt' },
    solution: 'echo ok > ok.txt',
  });
  writeTask(extra, { id: 'added-two', instruction: 'Write no into no.txt.', assertions: { no: 'grep -q no no.txt' } });
  ({ serve, browser, page } = await openLabInChromium(data, {
    viewport: { width: 1024, height: 800 },
    deviceScaleFactor: 1,
  }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const count = () => page.getByTestId('task-count').textContent();

describe('the Tasks page lists the whole library', () => {
  test('the committed suites are listed beside the examples', async () => {
    await page.goto(`${serve.url}#/tasks`);
    await page
      .getByTestId('task-count')
      .filter({ hasText: `${total} of ${total} tasks` })
      .waitFor({ timeout: 60_000 });
    const options = await page.getByLabel('Source').locator('option').allTextContents();
    expect(options).toEqual(expect.arrayContaining(['examples', ...Object.keys(suiteCounts)]));
    await page.getByLabel('Source').selectOption('suites/id-nano');
    expect(await count()).toBe(`${suiteCounts['suites/id-nano']} of ${total} tasks`);
    await page.getByLabel('Source').selectOption('');
  });

  test('"add a source" lists a folder from outside the lab; a bad path says why', async () => {
    await page.getByTestId('task-sources').locator('summary').click();
    await page.getByLabel('folder or pack to add').fill('relative/path');
    await page.getByTestId('add-source').click();
    expect(await page.getByTestId('source-error').textContent()).toContain('relative path');
    await page.getByLabel('folder or pack to add').fill(extra);
    await page.getByTestId('add-source').click();
    await page
      .getByTestId('task-count')
      .filter({ hasText: `${total + 2} of ${total + 2} tasks` })
      .waitFor({ timeout: 30_000 });
    const row = page.getByTestId('task-sources').locator('tr[data-source="added/my-tasks"]');
    expect(await row.locator('td').nth(2).textContent()).toBe('2');
    await page.getByLabel('Source').selectOption('added/my-tasks');
    expect(
      await page.locator('tbody tr[data-task]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-task'))),
    ).toEqual(['added-one', 'added-two']);
    await page.getByLabel('Source').selectOption('');
    // Kept in the lab settings: the CLI lists the same sources.
    const listed = parseJsonOutput<{ sources: { label: string; kind: string; tasks: number }[] }>(
      await runT1lab(['tasks', 'sources', '--json'], { env: { T1LAB_HOME: data } }),
    );
    expect(listed.sources.find((s) => s.label === 'added/my-tasks')).toMatchObject({ kind: 'added', tasks: 2 });
    expect(listed.sources.find((s) => s.label === 'suites/id-nano')).toMatchObject({
      kind: 'suite',
      tasks: suiteCounts['suites/id-nano'],
    });
  });

  test('each task shows its pass rate over the runs, sorts by it, and shows its history', async () => {
    const cell = page.locator(`tr[data-task="${tracked}"] td[data-key="pass"]`).first();
    expect(await cell.textContent()).toBe('67% · 2/3');
    expect(await page.locator(`tr[data-task="${tracked}"] td[data-key="runs"]`).first().textContent()).toBe('2');
    expect(await page.locator('tr[data-task="lru-cache"] td[data-key="pass"]').textContent()).toBe('0% · 0/2');
    // Sort by pass rate, highest first: the tracked task leads, tasks never run go last.
    const header = page.locator('th[data-sort="pass"]');
    await header.click();
    await header.click();
    expect(await header.getAttribute('aria-sort')).toBe('descending');
    // (A suite task may sit in more than one suite: one row per source, the same rate.)
    const order = [
      ...new Set(
        await page
          .locator('tbody tr[data-task]')
          .evaluateAll((rows) => rows.slice(0, 10).map((r) => r.getAttribute('data-task'))),
      ),
    ];
    expect(order.slice(0, 2)).toEqual([tracked, 'lru-cache']);
    await page.locator(`tr[data-task="${tracked}"]`).first().click();
    await page.getByTestId('task-detail').getByRole('heading', { name: tracked }).waitFor();
    expect(await page.getByTestId('task-pass-summary').textContent()).toBe(
      'Resolved in 2 of 3 episodes (67%) over 2 runs.',
    );
    expect(await page.getByTestId('task-history').locator('tbody tr').count()).toBe(2);
  });

  test('at 1024 px no column is clipped and nothing scrolls sideways', async () => {
    const table = page.getByTestId('task-table');
    const [tableRight, listRight] = (await table.evaluate((t) => [
      t.getBoundingClientRect().right,
      t.closest('.tasks-list')!.getBoundingClientRect().right,
    ])) as number[];
    expect(tableRight).toBeLessThanOrEqual(listRight! + 1);
    const headers = await table.locator('thead th').evaluateAll((ths) =>
      ths.map((th) => ({
        text: th.textContent,
        right: th.getBoundingClientRect().right,
        width: th.getBoundingClientRect().width,
      })),
    );
    expect(headers.map((h) => h.text?.replace(/ [▲▼]$/, ''))).toEqual([
      'task',
      'category',
      'difficulty',
      'family',
      'source',
      'pass rate',
      'runs',
      'audit',
    ]);
    for (const h of headers) {
      expect(h.right, h.text ?? '').toBeLessThanOrEqual(listRight! + 1);
      expect(h.width, h.text ?? '').toBeGreaterThan(30);
    }
    const overflow = (await page.evaluate(
      "[...document.querySelectorAll('.content, .tasks-list, html')].map((e) => e.scrollWidth - e.clientWidth)",
    )) as number[];
    expect(
      overflow.every((o) => o <= 0),
      `overflow ${overflow.join(', ')}`,
    ).toBe(true);
  });
});
