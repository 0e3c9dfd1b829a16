/**
 * The runs table's layout in Chromium at 1440×900: the start time is whole, a run with three tags is one
 * line high like a run with none, and grouped, the table grows with the page instead of scrolling in a
 * short box.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RUN_META_FILE, RUN_META_SCHEMA } from '../../electron/domain/run-meta';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { writeRunFolder } from '../helpers/runs';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
/** Enough runs that their rows and three group headings overflow the table's ungrouped box (38% of 900 px). */
const RUNS = Array.from({ length: 16 }, (_, i) => ({
  id: `20261201-${String(100000 + i * 100)}-eval-${i}`,
  suite: `/suites/suite-${i % 3}`,
}));
const TAGGED = RUNS[0]!.id;
const UNTAGGED = RUNS[1]!.id;

beforeAll(async () => {
  for (const [i, r] of RUNS.entries()) {
    const dir = await writeRunFolder(join(data, 'runs'), r.id, [{ task: 'task-a', resolved: [i % 2 === 0] }], {
      suite: r.suite,
      createdAt: `2026-12-01T${String(10 + (i % 10)).padStart(2, '0')}:${String(i).padStart(2, '0')}:00Z`,
    });
    if (r.id === TAGGED)
      writeFileSync(
        join(dir, RUN_META_FILE),
        JSON.stringify({
          schema: RUN_META_SCHEMA,
          name: null,
          tags: ['baseline', 'r3:on', 'lr=3e-5'],
          notes: '',
          updatedAt: null,
        }),
      );
  }
  ({ serve, browser, page } = await openLabInChromium(data, {
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: 1,
  }));
  await page.goto(`${serve.url}#/runs`);
  // (expect.poll is for tests only: wait for the last row instead.)
  await page
    .getByTestId('run-row')
    .nth(RUNS.length - 1)
    .waitFor({ timeout: 20_000 });
}, 120_000);

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const row = (id: string) => page.locator(`[data-testid="run-row"][data-run="${id}"]`);

describe('the runs table at 1440 px', () => {
  test('every start time is whole', async () => {
    const cut = await page
      .locator('table.runs td[data-key="started"]')
      .evaluateAll((cells) => cells.filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent));
    expect(cut).toEqual([]);
  });

  test('three tags keep a row one line high; the cell names them all', async () => {
    const heights = await Promise.all([TAGGED, UNTAGGED].map(async (id) => (await row(id).boundingBox())!.height));
    expect(heights[0]).toBeLessThanOrEqual(heights[1]! + 1);
    expect(await row(TAGGED).locator('td[data-key="tags"]').getAttribute('title')).toBe('baseline r3:on lr=3e-5');
    expect(await row(TAGGED).getByTestId('tag-chip').count()).toBe(3);
  });

  test('grouped, the table grows with the page instead of scrolling in a short box', async () => {
    await page.getByTestId('runs-group').selectOption('suite');
    await expect.poll(() => page.getByTestId('run-group').count()).toBe(3);
    const pane = page.locator('.runs-list-pane');
    const [scroll, client] = (await pane.evaluate((el) => [el.scrollHeight, el.clientHeight])) as [number, number];
    expect(scroll).toBeLessThanOrEqual(client + 1);
    // The whole grouped table is laid out: its last row is below the ungrouped box's 38vh.
    const table = (await page.getByTestId('runs').boundingBox())!;
    expect(table.height).toBeGreaterThan(900 * 0.38);
  });
});
