/**
 * The Tasks page as a user meets it: web mode (`t1lab serve`) in Debian's Chromium. Browse, filter by
 * category, difficulty and audit verdict, read a task, run its audit (real sandboxes) and see the result.
 * Needs the build (npm run build): the built CLI serves the built renderer.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';
import { libraryTaskCount } from '../helpers/tasks';

let home: { path: string; remove(): void };
let serve: ServeProcess;
let browser: Browser;
let page: Page;
/** The examples (18) and the committed suites. */
let total = 0;

beforeAll(async () => {
  home = makeTempDir('t1lab-e2e-tasks-');
  total = await libraryTaskCount();
  ({ serve, browser, page } = await openLabInChromium(home.path));
  await page.goto(serve.url);
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const count = () => page.getByTestId('task-count').textContent();

describe('the Tasks page', () => {
  it('lists the built-in tasks and filters them', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Tasks', exact: true }).click();
    await page
      .getByTestId('task-count')
      .filter({ hasText: `${total} of ${total} tasks` })
      .waitFor({ timeout: 60_000 });
    await page.getByLabel('Source').selectOption('examples');
    await page.getByLabel('Category').selectOption('security');
    expect(await count()).toBe(`3 of ${total} tasks`);
    await page.getByLabel('Difficulty').selectOption('hard');
    expect(await count()).toBe(`1 of ${total} tasks`);
    await page.getByLabel('Difficulty').selectOption('');
    await page.getByLabel('Category').selectOption('');
    expect(await count()).toBe(`18 of ${total} tasks`);
    await page.getByLabel('Search').fill('stats');
    expect(await count()).toBe(`1 of ${total} tasks`);
    await page.getByLabel('Search').fill('');
  });

  it('shows a task: instruction, verifier assertions and oracle solution', async () => {
    await page.locator('tr[data-task="verify-release"]').click();
    const detail = page.getByTestId('task-detail');
    await detail.getByRole('heading', { name: 'verify-release' }).waitFor();
    expect(await page.getByTestId('instruction').textContent()).toContain('Verify a release before shipping it');
    expect(await page.getByTestId('assertions').textContent()).toContain('test_tampered_files_quarantined_intact');
    expect(await page.getByTestId('solution').textContent()).toContain('hmac.compare_digest');
  });

  it('runs the audit of the task and shows its verdict; the verdict filter finds it', async () => {
    await page.getByRole('button', { name: 'Run audit' }).click();
    const result = page.getByTestId('audit-result');
    await result.waitFor({ timeout: 90_000 });
    expect(await result.locator('td[data-key="verdict"]').textContent()).toBe('ok');
    expect(await result.locator('td[data-key="oracle"]').textContent()).toBe('4/4 passed');
    expect(await result.locator('td[data-key="no-op agent"]').textContent()).toBe('0/4 passed');
    expect(await result.textContent()).toContain('test_report');
    await page.getByLabel('Audit verdict').selectOption('ok');
    expect(await count()).toBe(`1 of ${total} tasks`);
    await page.getByLabel('Audit verdict').selectOption('not audited');
    expect(await count()).toBe(`17 of ${total} tasks`);
  }, 120_000);

  it('remembers the verdict after a reload', async () => {
    await page.reload();
    await page
      .getByTestId('task-count')
      .filter({ hasText: `of ${total} tasks` })
      .waitFor({ timeout: 60_000 });
    await page.getByLabel('Source').selectOption('examples');
    await page.getByLabel('Audit verdict').selectOption('ok');
    expect(await count()).toBe(`1 of ${total} tasks`);
    expect(await page.locator('tr[data-task="verify-release"] .badge').textContent()).toBe('ok');
  });
});
