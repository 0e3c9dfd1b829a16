/**
 * A run's detail in Chromium: at the end of an evaluation the bar, the row and the results agree (no
 * "running" row beside a "done" bar, no stats short of the last episode); episodes filter by failure and
 * stop reason; a turn shows the assistant's raw message; the Training page's rollout picker offers no step
 * that has no episode yet.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import type { ServeProcess } from '../helpers/serve';
import { writeSuite } from '../helpers/tasks';
import { makeTempDir } from '../helpers/tmp';
import { writeTrainingRun } from '../helpers/training-run';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
let suite: string;
let script: string;
const poll = <T>(fn: () => T | Promise<T>, timeout = 20_000) => expect.poll(fn, { timeout });

beforeAll(async () => {
  suite = writeSuite(join(home.path, 'suite'));
  script = join(home.path, 'agent.json');
  // Solves make-hello, fails the others.
  writeFileSync(
    script,
    JSON.stringify({
      turns: [{ action: { tool: 'bash', command: 'echo hello > hello.txt' } }, { action: { tool: 'submit' } }],
    }),
  );
  const run = writeTrainingRun(data, '20261201-100000-ppo-r', { steps: 12, rollouts: [5] });
  // A step the trainer has begun writing: a folder, no episode yet.
  mkdirSync(join(run, 'rollouts', 'step-000010'), { recursive: true });
  writeFileSync(join(run, 'rollouts', 'step-000010', 'episodes.jsonl'), '');
  ({ serve, browser, page } = await openLabInChromium(data, { viewport: { width: 1024, height: 900 } }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

describe('Run detail', () => {
  test('at the end of an evaluation the bar, the row and the results agree', async () => {
    await page.goto(`${serve.url}#/runs`);
    const form = page.getByTestId('new-eval');
    await form.locator('input[name="suite"]').fill(suite);
    await form.locator('input[name="policy"]').fill(`replay:${script}`);
    await form.getByRole('button', { name: 'Start evaluation' }).click();
    await page.getByTestId('run-detail').waitFor({ timeout: 60_000 });
    await page.getByTestId('run-tab-episodes').click();
    // Watch every state the bar shows; when it says done, the results must already hold all episodes.
    await page.evaluate(`(() => {
      window.__doneMismatch = [];
      const check = () => {
        const bar = document.querySelector('[data-testid="run-progress"]');
        if (!bar || bar.getAttribute('data-state') !== 'done') return;
        const count = document.querySelector('[data-testid="episodes-count"]')?.textContent ?? '';
        const row = document.querySelector('[data-testid="run-row"].selected td[data-key="state"]')?.textContent ?? '';
        if (!/^3 of 3/.test(count) || row === 'running') window.__doneMismatch.push(count + ' | ' + row);
      };
      new MutationObserver(check).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    })()`);
    await poll(() => page.getByTestId('run-progress').getAttribute('data-state'), 180_000).toBe('done');
    await poll(() => page.locator('[data-testid="run-row"].selected td[data-key="state"]').textContent()).toBe(
      'complete',
    );
    expect(await page.evaluate('window.__doneMismatch')).toEqual([]);
    expect(await page.getByTestId('episodes-count').textContent()).toBe('3 of 3 episodes');
  });

  test('episodes filter by failure and by stop reason', async () => {
    await page.getByTestId('episodes-failed-only').check();
    await poll(() => page.getByTestId('episode-row').count()).toBe(2);
    expect(await page.getByTestId('episodes-count').textContent()).toBe('2 of 3 episodes');
    await page.getByTestId('episodes-failed-only').uncheck();
    const options = await page.getByTestId('episodes-stop').locator('option').allTextContents();
    expect(options[0]).toBe('any');
    await page.getByTestId('episodes-stop').selectOption('submitted');
    await poll(() => page.getByTestId('episode-row').count()).toBe(3);
    await page.getByTestId('episodes-stop').selectOption('');
  });

  test("a turn shows the assistant's raw message", async () => {
    await page.locator('[data-testid="episode-row"][data-key="make-hello@0"]').click();
    await page.getByTestId('episode-viewer').waitFor();
    const raw = page.getByTestId('turn-raw-text').first();
    expect(await raw.textContent()).toContain('echo hello > hello.txt');
  });

  test('the rollout picker offers no step without episodes', async () => {
    await page.goto(`${serve.url}#/training/20261201-100000-ppo-r`);
    const picker = page.getByTestId('rollout-step');
    await picker.waitFor({ timeout: 20_000 });
    expect(await picker.locator('option:not([disabled])').allTextContents()).toEqual(['5']);
  });
});
