/**
 * The playground in Chromium against the built web host and a real checkpoint: tokens appear while the
 * policy worker samples them, Stop ends the decoding in the worker (the result says 'stopped' and holds
 * exactly the tokens shown; nothing more arrives), and clicking a token lists the most likely tokens at its
 * position with their log-probs. Needs `npm run build`.
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
const MAX_TOKENS = 3000;
/**
 * The policy worker pauses this long after every decoding step, so that the sample cannot end before Stop:
 * MAX_TOKENS steps take at least 150 s, longer than the test may run (120 s), while the first tokens arrive in
 * well under a second. Without it the tiny checkpoint decodes all 3000 tokens in a few seconds, and on a
 * loaded machine that came before the click on Stop.
 */
const STEP_DELAY_MS = 50;

beforeAll(async () => {
  initCheckpoint({
    preset: 'nano',
    out: join(home.path, 'checkpoints', 'tiny'),
    seed: 4,
    // Room for a long generation, so that Stop comes well before its end.
    overrides: { vocab_size: 400, num_hidden_layers: 2, num_experts: 4, max_position_embeddings: 4096 },
    corpus: [],
  });
  ({ serve, browser, page } = await openLabInChromium(
    home.path,
    { viewport: { width: 1024, height: 800 }, deviceScaleFactor: 1 },
    { T1LAB_DECODE_STEP_DELAY_MS: String(STEP_DELAY_MS) },
  ));
  expect(MAX_TOKENS * STEP_DELAY_MS).toBeGreaterThan(120_000); // the e2e test timeout (vitest.config.ts)
}, 300_000);

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

describe('Playground: streaming, Stop, alternatives', () => {
  test('tokens stream in as they are sampled and Stop ends the decoding in the policy worker', async () => {
    await page.goto(`${serve.url}#/models`);
    await page.getByTestId('checkpoints').getByText('tiny').waitFor({ timeout: 30_000 });
    await page.getByLabel('prompt').fill('ls -la');
    await page.getByLabel('max tokens').fill(String(MAX_TOKENS));
    await page.getByLabel('alternatives').fill('5');
    await page.getByRole('button', { name: 'Sample' }).click();
    // Tokens are on the page while the sample is still running.
    const streaming = page.locator('[data-testid="sampled-tokens"][data-streaming="1"] .token');
    await expect.poll(() => streaming.count(), { timeout: 60_000 }).toBeGreaterThanOrEqual(8);
    expect(await page.getByTestId('stop-sample').isVisible()).toBe(true);
    expect(await page.getByTestId('sample-meta').count()).toBe(0);
    await page.getByTestId('stop-sample').click();
    const meta = page.getByTestId('sample-meta');
    await meta.waitFor({ timeout: 30_000 });
    const text = (await meta.textContent())!;
    expect(text).toMatch(/^\d+ tokens, stopped, /);
    const n = Number(text.split(' ')[0]);
    expect(n).toBeGreaterThanOrEqual(8);
    expect(n).toBeLessThan(MAX_TOKENS);
    const final = page.locator('[data-testid="sampled-tokens"][data-streaming="0"] .token');
    expect(await final.count()).toBe(n);
    // Nothing is decoded after the stop: the count stays, and the worker is free for the next sample at once.
    await page.waitForTimeout(1_500);
    expect(await final.count()).toBe(n);
    expect(await page.getByTestId('stop-sample').count()).toBe(0);
  });

  test('clicking a token lists the most likely tokens at its position with their log-probs', async () => {
    const token = page.locator('[data-testid="sampled-tokens"][data-streaming="0"] .token').nth(2);
    const sampledId = await token.getAttribute('data-id');
    const sampledLogprob = Number(await token.getAttribute('data-logprob'));
    expect(await token.getAttribute('title')).toContain('most likely here:');
    await token.click();
    const panel = page.getByTestId('token-alternatives');
    await panel.waitFor();
    expect(await panel.getAttribute('data-index')).toBe('2');
    const rows = panel.getByTestId('alternative');
    expect(await rows.count()).toBe(5);
    const logprobs = (await rows.evaluateAll((els) =>
      els.map((e) => Number(e.getAttribute('data-logprob'))),
    )) as number[];
    for (let i = 1; i < logprobs.length; i++) expect(logprobs[i]).toBeLessThanOrEqual(logprobs[i - 1]!);
    expect(logprobs.every((l) => l <= 0)).toBe(true);
    expect(logprobs.reduce((s, l) => s + Math.exp(l), 0)).toBeLessThanOrEqual(1 + 1e-6);
    // The sampled token, when among them, has the log-prob the token shows.
    const same = panel.locator(`[data-testid="alternative"][data-id="${sampledId}"]`);
    if (await same.count())
      expect(Math.abs(Number(await same.getAttribute('data-logprob')) - sampledLogprob)).toBeLessThan(1e-3);
    else expect(await panel.textContent()).toContain('outside the 5 most likely');
    const overflow = (await page.evaluate(
      "[...document.querySelectorAll('.content, html')].map((e) => e.scrollWidth - e.clientWidth)",
    )) as number[];
    expect(
      overflow.every((o) => o <= 0),
      `overflow ${overflow.join(', ')}`,
    ).toBe(true);
  });
});
