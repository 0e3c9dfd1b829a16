/**
 * The Training page's Dense-reward guard in Chromium against the built web host, on a PPO run folder whose
 * episodes were written with the PPO stage's writers (test/helpers/guard-run.ts): the farmed assertion is
 * listed as flagged with its before -> after rates, the categories show dense and binary side by side,
 * the assertion table marks only the farmed row, and an LM run shows no guard at all.
 * With T1LAB_SCREENSHOTS=DIR the panel is photographed into DIR (docs/screenshots/ for the README).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { FARMED, writeGuardRun } from '../helpers/guard-run';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';
import { writeTrainingRun } from '../helpers/training-run';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const RUN = '20261201-110000-ppo-guard';
const shots = process.env.T1LAB_SCREENSHOTS;

beforeAll(async () => {
  writeGuardRun(home.path, RUN);
  writeTrainingRun(home.path, '20261201-080000-lm-base', { stage: 'lm', steps: 20 });
  ({ serve, browser, page } = await openLabInChromium(home.path, { viewport: { width: 1400, height: 1000 } }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

describe('Training page: dense-reward guard', () => {
  test('shows the farmed assertion flagged, the rewards per category and the pass rates by rise', async () => {
    await page.goto(`${serve.url}#/training`);
    await page.getByTestId('page-training').waitFor();
    // The newest run (the PPO one) is opened first.
    const panel = page.locator(`[data-testid="guard-panel"][data-run="${RUN}"]`);
    await panel.getByTestId('guard-flags').waitFor({ timeout: 20_000 });
    const flags = panel.getByTestId('guard-flag');
    expect(await flags.count()).toBe(1);
    expect(await flags.first().getAttribute('data-task')).toBe(FARMED.taskId);
    expect(await flags.first().getAttribute('data-assertion')).toBe(FARMED.assertion);
    expect((await flags.first().locator('td').allTextContents()).slice(2)).toEqual(['0% → 100%', '0% → 0%']);

    const category = (c: string) => panel.locator(`[data-testid="guard-category"][data-category="${c}"] td`);
    expect((await category(FARMED.category).allTextContents()).slice(0, 5)).toEqual([
      FARMED.category,
      '12',
      '0.00 → 1.00',
      '0% → 50%',
      '0% → 0%',
    ]);
    expect((await category('file-operations').allTextContents()).slice(4, 5)).toEqual(['0% → 100%']);

    const rows = panel.getByTestId('guard-assertion');
    expect(await rows.count()).toBe(4);
    // Largest rise first: the farmed one and the learnt one both rose 100 points; only the farmed is flagged.
    expect(await rows.first().getAttribute('data-assertion')).toBe(FARMED.assertion);
    expect(await panel.locator('[data-testid="guard-assertion"][data-flagged="true"]').count()).toBe(1);
    expect(
      await panel.locator('[data-testid="guard-assertion"][data-assertion="file_exists"]').getAttribute('data-flagged'),
    ).toBe('false');
    await panel.getByTestId('guard-sort-rise').click();
    expect(await rows.first().getAttribute('data-assertion')).toBe('count_correct');

    if (shots) {
      mkdirSync(shots, { recursive: true });
      await panel.getByTestId('guard-sort-rise').click();
      await panel.scrollIntoViewIfNeeded();
      await panel.screenshot({ path: join(shots, 'training-guard.png') });
    }
  });

  test('an LM run has no guard panel', async () => {
    await page.locator('[data-testid="training-run-row"][data-run="20261201-080000-lm-base"]').click();
    await expect.poll(() => page.getByTestId('guard-panel').count(), { timeout: 10_000 }).toBe(0);
  });
});
