/**
 * The playground's presets and saved prompts in Chromium: a built-in preset sets the sampling settings at
 * once; a preset and prompts (completion and chat) saved under a name come back after a reload. Needs
 * `npm run build`.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { initCheckpoint } from '../../electron/lab/models/operations';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();

beforeAll(async () => {
  initCheckpoint({
    preset: 'nano',
    out: join(home.path, 'checkpoints', 'tiny'),
    seed: 4,
    overrides: { vocab_size: 400, num_hidden_layers: 2, num_experts: 4 },
    corpus: [],
  });
  ({ serve, browser, page } = await openLabInChromium(home.path, { viewport: { width: 1024, height: 800 } }));
}, 300_000);

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const open = async () => {
  await page.goto(`${serve.url}#/models`);
  await page.getByTestId('playground').waitFor({ timeout: 30_000 });
};
const settings = async () =>
  Promise.all(
    ['temperature', 'top-p', 'top-k', 'max tokens'].map((l) => page.getByLabel(l, { exact: true }).inputValue()),
  );

describe('playground library', () => {
  test('a built-in preset sets the sampling settings; a saved one comes back after a reload', async () => {
    await open();
    await page.getByTestId('preset').selectOption('focused (T=0.7, top-p 0.9, top-k 40)');
    expect(await settings()).toEqual(['0.7', '0.9', '40', '48']);
    await page.getByTestId('preset').selectOption('greedy (as evaluations)');
    expect(await settings()).toEqual(['0', '1', '0', '48']);
    await page.getByLabel('temperature', { exact: true }).fill('0.3');
    await page.getByLabel('top-k', { exact: true }).fill('7');
    await page.getByLabel('max tokens', { exact: true }).fill('96');
    await page.getByTestId('save-preset').click();
    await page.getByTestId('preset-name').fill('mine');
    await page.getByTestId('preset-name').press('Enter');
    await page.reload();
    await page.getByTestId('playground').waitFor({ timeout: 30_000 });
    await page.getByTestId('preset').selectOption('mine');
    expect(await settings()).toEqual(['0.3', '1', '7', '96']);
  });

  test('prompts saved under a name (completion and chat) come back after a reload', async () => {
    await page.getByLabel('prompt', { exact: true }).fill('echo hello');
    await page.getByTestId('save-prompt').click();
    await page.getByTestId('prompt-name').fill('hello');
    await page.getByTestId('prompt-name').press('Enter');
    await page.getByLabel('chat').check();
    await page.getByLabel('message').fill('List the files in /tmp.');
    await page.getByTestId('save-prompt').click();
    await page.getByTestId('prompt-name').fill('tmp listing');
    await page.getByTestId('prompt-name').press('Enter');
    await page.reload();
    await page.getByTestId('playground').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('saved-prompt').locator('option').allTextContents()).toEqual([
      'open…',
      'hello',
      'tmp listing',
    ]);
    await page.getByTestId('saved-prompt').selectOption('tmp listing');
    expect(await page.getByLabel('chat').isChecked()).toBe(true);
    expect(await page.getByLabel('message').inputValue()).toBe('List the files in /tmp.');
    await page.getByTestId('saved-prompt').selectOption('hello');
    expect(await page.getByLabel('completion').isChecked()).toBe(true);
    expect(await page.getByLabel('prompt', { exact: true }).inputValue()).toBe('echo hello');
  });
});
