/**
 * The Models page in Chromium against the built web host: a real checkpoint in the data dir is listed with
 * its config and hashes; the playground samples it in the policy worker, colours tokens by log-prob and
 * draws the expert heatmap of the selected tokens.
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
const LAYERS = 2;
const EXPERTS = 4;

beforeAll(async () => {
  initCheckpoint({
    preset: 'nano',
    out: join(home.path, 'checkpoints', 'tiny'),
    seed: 4,
    overrides: { vocab_size: 400, num_hidden_layers: LAYERS, num_experts: EXPERTS, max_position_embeddings: 256 },
    corpus: [],
  });
  ({ serve, browser, page } = await openLabInChromium(home.path));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

describe('Models page', () => {
  test('lists the checkpoint with its config, size and hashes', async () => {
    await page.goto(serve.url.replace(/#.*$/, '') + '#/models');
    await page.getByTestId('checkpoints').getByText('tiny').waitFor();
    const details = page.getByTestId('checkpoint-details');
    await details.waitFor();
    expect(await details.locator('td[data-key="num_hidden_layers"]').textContent()).toBe(String(LAYERS));
    expect(await details.locator('.hash').first().textContent()).toMatch(/^[0-9a-f]{64}$/);
  });

  test('samples in the playground: tokens coloured by log-prob, heatmap of the selected tokens', async () => {
    await page.getByLabel('prompt').fill('ls -la');
    await page.getByRole('button', { name: 'Sample' }).click();
    // The finished sample (tokens also show while they stream in, under data-streaming="1").
    const tokens = page.locator('[data-testid="sampled-tokens"][data-streaming="0"] .token');
    await tokens.first().waitFor({ timeout: 60_000 });
    const count = await tokens.count();
    expect(count).toBeGreaterThan(0);
    // Every token takes space on screen, including a lone \r or space (drawn as ␍ or ␣).
    const widths = await tokens.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
    expect(widths.filter((w) => w <= 0)).toEqual([]);
    const logprob = Number(await tokens.first().getAttribute('data-logprob'));
    expect(logprob).toBeLessThan(0);
    expect(await page.getByTestId('sample-meta').textContent()).toContain('on cpu');
    const cells = page.getByTestId('expert-heatmap').locator('rect[data-weight]');
    expect(await cells.count()).toBe(LAYERS * EXPERTS);
    const total = async () =>
      (await cells.evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-weight'))))).reduce(
        (a, b) => a + b,
        0,
      );
    // All tokens: each contributes gate weights summing to 1 per layer.
    expect(await total()).toBeCloseTo(count * LAYERS, 2);
    await tokens.first().click();
    await expect.poll(total).toBeCloseTo(LAYERS, 2);
  });
});
