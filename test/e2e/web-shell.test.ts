import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cpus } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();

beforeAll(async () => {
  ({ serve, browser, page } = await openLabInChromium(home.path));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

describe('web mode in Chromium', () => {
  test('without the token the page is refused', async () => {
    const response = await page.goto(`${serve.origin}/`);
    expect(response?.status()).toBe(401);
  });

  test('opens with the printed URL, connects and navigates between the five pages', async () => {
    await page.goto(serve.url);
    await expect.poll(() => page.getByTestId('connection').textContent()).toBe('connected');
    for (const [name, testId] of [
      ['Runs', 'page-runs'],
      ['Training', 'page-training'],
      ['Models', 'page-models'],
      ['Tasks', 'page-tasks'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name, exact: true }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe(name);
      expect(await page.getByTestId(testId).count()).toBe(1);
    }
  });

  test('the System page shows the host’s real doctor report', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'System', exact: true }).click();
    const cell = (key: string) => page.locator(`td[data-key="${key}"]`);
    await cell('node').waitFor();
    expect(await cell('node').textContent()).toBe(process.versions.node);
    expect(await cell('cpu cores').textContent()).toBe(String(cpus().length));
    expect(await cell('data dir').textContent()).toBe(home.path);
    expect(await cell('sandbox').textContent()).toContain('bubblewrap');
    expect(await cell('provider cpu').textContent()).toBe('available');
    // The doctor ran its onnxruntime probe in a worker process, which the Workers table reports.
    await expect.poll(() => page.getByTestId('workers').textContent()).toContain('probe');
  });

  test('the page keeps its place across a reload (hash navigation, cookie auth)', async () => {
    await page.reload();
    await expect.poll(() => page.locator('h1').textContent()).toBe('System');
    await expect.poll(() => page.getByTestId('connection').textContent()).toBe('connected');
  });
});
