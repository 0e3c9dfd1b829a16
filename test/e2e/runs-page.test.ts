/**
 * The Runs page in Chromium against the built web host: start an evaluation from the form, watch the running
 * episodes in live read-only terminals, read the results (tables, bar charts with interval whiskers), open an
 * episode, step through its turns and replay its recording.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import type { ServeProcess } from '../helpers/serve';
import { writeSuite } from '../helpers/tasks';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
let suite: string;
let script: string;

beforeAll(async () => {
  suite = writeSuite(join(home.path, 'suite'));
  script = join(home.path, 'agent.json');
  // A scripted agent slow enough to be watched: it solves make-hello and fails the others.
  writeFileSync(
    script,
    JSON.stringify({
      turns: [
        { delayMs: 1500, action: { tool: 'bash', command: 'echo hello > hello.txt; ls -l' } },
        { delayMs: 1500, action: { tool: 'bash', command: 'cat hello.txt' } },
        { action: { tool: 'submit' } },
      ],
    }),
  );
  ({ serve, browser, page } = await openLabInChromium(join(home.path, 'data')));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

describe('Runs page', () => {
  test('starts an evaluation and shows its running episodes in live terminals', async () => {
    await page.goto(`${serve.url}#/runs`);
    await page.getByTestId('page-runs').waitFor();
    const form = page.getByTestId('new-eval');
    await form.locator('input[name="suite"]').fill(suite);
    await form.locator('input[name="policy"]').fill(`replay:${script}`);
    await form.locator('input[name="concurrency"]').fill('2');
    await form.getByRole('button', { name: 'Start evaluation' }).click();

    await page.getByTestId('run-detail').waitFor({ timeout: 60_000 });
    await expect
      .poll(() => page.getByTestId('run-progress').getAttribute('data-state'), { timeout: 60_000 })
      .toBe('running');
    const terminals = page.getByTestId('live-terminal');
    await terminals.first().waitFor({ timeout: 60_000 });
    expect(await terminals.count()).toBeGreaterThanOrEqual(1);
  });

  test("what the agent's shell prints reaches the read-only terminal as it happens", async () => {
    const terminals = page.getByTestId('live-terminal');
    // No scrolling here: the page brings the run it started into view (xterm draws nothing off screen).
    await expect.poll(() => terminals.first().isVisible()).toBe(true);
    const box = await terminals.first().boundingBox();
    expect(box!.y).toBeLessThan(page.viewportSize()!.height);
    await expect
      .poll(() => terminals.first().innerText({ timeout: 5_000 }), { timeout: 10_000 })
      .toContain('hello.txt');
    expect(await terminals.first().locator('textarea').count()).toBeLessThanOrEqual(1);
  });

  test('shows the results: tables and bar charts with 95% interval whiskers', async () => {
    await expect
      .poll(() => page.getByTestId('run-progress').getAttribute('data-state'), { timeout: 120_000 })
      .toBe('done');
    const results = page.getByTestId('run-results');
    await results.waitFor({ timeout: 30_000 });
    // The results refresh as episodes finish: wait for the last one to be in.
    await expect
      .poll(() => results.locator('td[data-key="resolved"]').textContent(), { timeout: 15_000 })
      .toMatch(/^33\.3% of 3 tasks \(95% Wilson \[/);
    const rows = page.getByTestId('by-category').locator('tbody tr');
    expect(await rows.count()).toBe(2);
    const bars = page.locator('[data-testid="interval-bar"]');
    expect(await bars.count()).toBe(4); // 2 categories + 2 difficulties
    for (let i = 0; i < 4; i++) {
      const bar = bars.nth(i);
      const [value, lo, hi] = await Promise.all(
        ['data-value', 'data-lo', 'data-hi'].map(async (a) => Number(await bar.getAttribute(a))),
      );
      expect(lo).toBeLessThanOrEqual(value!);
      expect(value).toBeLessThanOrEqual(hi!);
      expect(await bar.locator('line.whisker').count()).toBe(3);
    }
    const fileOps = page.locator('[data-testid="interval-bar"][data-label="file-operations"]').first();
    expect(Number(await fileOps.getAttribute('data-value'))).toBe(1);
    await page.getByTestId('run-tab-episodes').click();
    expect(await page.getByTestId('episode-row').count()).toBe(3);
  });

  test('opens an episode, steps through its turns and replays its recording', async () => {
    await page.locator('[data-testid="episode-row"][data-key="make-hello@0"]').click();
    const viewer = page.getByTestId('episode-viewer');
    await viewer.waitFor();
    expect(await page.getByTestId('turn-label').textContent()).toBe('turn 1 / 3');
    expect(await page.getByTestId('turn-actions').textContent()).toContain('$ echo hello > hello.txt; ls -l');
    expect(await page.getByTestId('turn-observation').textContent()).toContain('hello.txt');
    await page.getByTestId('turn-next').click();
    expect(await page.getByTestId('turn-label').textContent()).toBe('turn 2 / 3');
    expect(await page.getByTestId('turn-observation').textContent()).toMatch(/^hello\n\[exit code 0/);
    expect(await page.getByTestId('assertions').textContent()).toContain('hello.txt says hello');

    await page.getByTestId('load-recording').click();
    const player = page.getByTestId('cast-player');
    await player.waitFor();
    await page.getByTestId('cast-play').click();
    await expect.poll(() => player.locator('.cast-screen').innerText(), { timeout: 30_000 }).toContain('hello');
  });

  test('lists the finished run as complete', async () => {
    const row = page.getByTestId('run-row').first();
    await expect.poll(() => row.locator('td[data-key="state"]').textContent(), { timeout: 15_000 }).toBe('complete');
    expect(await row.locator('td[data-key="episodes"]').textContent()).toBe('3/3');
  });
});
