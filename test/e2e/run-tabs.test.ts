/**
 * A run's detail in tabs, in Chromium at 1024 px: overview, tasks × attempts, episodes (with filters) and
 * statistics, the tab in the address (reload and back keep it); an episode opened from the matrix opens in
 * the episodes tab, at the top of it, not in the middle of a long column. Needs `npm run build`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { parseJsonOutput, runT1lab } from '../helpers/cli';
import type { ServeProcess } from '../helpers/serve';
import { writeSuite } from '../helpers/tasks';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
const RUN = 'tabs-run';

beforeAll(async () => {
  const suite = writeSuite(join(home.path, 'suite'));
  const script = join(home.path, 'agent.json');
  // Solves make-hello, fails the other two tasks; two attempts each.
  writeFileSync(
    script,
    JSON.stringify({
      turns: [{ action: { tool: 'bash', command: 'echo hello > hello.txt' } }, { action: { tool: 'submit' } }],
    }),
  );
  const r = await runT1lab(
    [
      'eval',
      '--suite',
      suite,
      '--policy',
      `replay:${script}`,
      '--attempts',
      '2',
      '--out',
      join(data, 'runs', RUN),
      '--json',
    ],
    { env: { T1LAB_HOME: data }, timeoutMs: 180_000 },
  );
  expect(parseJsonOutput<{ episodes: number }>(r).episodes).toBe(6);
  ({ serve, browser, page } = await openLabInChromium(data, {
    viewport: { width: 1024, height: 800 },
    deviceScaleFactor: 1,
  }));
}, 240_000);

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const selectedTab = () => page.locator('[role="tab"][aria-selected="true"]').getAttribute('data-testid');
const noSideways = async () => {
  const overflow = (await page.evaluate(
    "[...document.querySelectorAll('.content, html')].map((e) => e.scrollWidth - e.clientWidth)",
  )) as number[];
  expect(
    overflow.every((o) => o <= 0),
    `overflow ${overflow.join(', ')}`,
  ).toBe(true);
};

describe('Run detail in tabs', () => {
  test('the overview holds the config and the summary, not the matrix, the episodes or the statistics', async () => {
    await page.goto(`${serve.url}#/runs/${RUN}`);
    await page.getByTestId('run-results').waitFor({ timeout: 30_000 });
    expect(await selectedTab()).toBe('run-tab-overview');
    expect(await page.getByTestId('run-config').count()).toBe(1);
    for (const absent of ['pass-matrix', 'episodes', 'run-statistics'])
      expect(await page.getByTestId(absent).count(), absent).toBe(0);
    expect(await page.getByTestId('run-tab-episodes').textContent()).toBe('Episodes (6)');
    await noSideways();
  });

  test('tasks × attempts: a cell opens its episode at the top of the episodes tab', async () => {
    await page.getByTestId('run-tab-tasks').click();
    expect(page.url()).toMatch(new RegExp(`#/runs/${RUN}/tasks$`));
    const matrix = page.getByTestId('pass-matrix');
    await matrix.waitFor();
    expect(await page.getByTestId('run-results').count()).toBe(0);
    await matrix.locator('button.cell.fail').first().click();
    const viewer = page.getByTestId('episode-viewer');
    await viewer.waitFor({ timeout: 15_000 });
    expect(await selectedTab()).toBe('run-tab-episodes');
    expect(page.url()).toMatch(new RegExp(`#/runs/${RUN}/[a-z-]+%40\\d$`));
    // The viewer comes first in the tab, above the list, and starts on screen.
    const [viewerTop, listTop, tabsBottom] = (await page.evaluate(
      "[document.querySelector('[data-testid=episode-viewer]').getBoundingClientRect().top, document.querySelector('[data-testid=episode-list]').getBoundingClientRect().top, document.querySelector('.run-tabs').getBoundingClientRect().bottom]",
    )) as number[];
    expect(viewerTop).toBeLessThan(listTop!);
    expect(viewerTop).toBeGreaterThanOrEqual(tabsBottom! - 1);
    expect(viewerTop).toBeLessThan(800);
    await noSideways();
  });

  test('episode filters hold across tabs; the tab survives a reload and the back button', async () => {
    await page.getByTestId('episodes-failed-only').check();
    expect(await page.getByTestId('episodes-count').textContent()).toBe('4 of 6 episodes');
    await page.getByTestId('run-tab-statistics').click();
    await page.getByTestId('run-statistics').waitFor();
    expect(page.url()).toMatch(new RegExp(`#/runs/${RUN}/statistics$`));
    await page.getByTestId('run-tab-episodes').click();
    expect(await page.getByTestId('episodes-count').textContent()).toBe('4 of 6 episodes');
    await page.goBack();
    await page.getByTestId('run-statistics').waitFor();
    expect(await selectedTab()).toBe('run-tab-statistics');
    await page.reload();
    await page.getByTestId('run-statistics').waitFor({ timeout: 30_000 });
    expect(await selectedTab()).toBe('run-tab-statistics');
    await noSideways();
  });
});
