/**
 * The Tasks page's pass rate by policy, model and suite, in Chromium: by default it leaves the oracle out (it
 * replays the solution), and the filter takes it over every policy, the oracle alone, one model or one suite;
 * the task's history follows the same filter and lists its runs by name. Needs `npm run build`.
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

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
/** An examples task, so the page lists it. */
const TASK = 'lru-cache';
const MODEL_A = 'onnx:/models/nano-a';

beforeAll(async () => {
  const runs = join(data, 'runs');
  await writeRunFolder(runs, '20261201-080000-eval-oracle', [{ task: TASK, resolved: [true, true] }], {
    policy: 'oracle',
    suite: '/suites/one',
    createdAt: '2026-12-01T08:00:00Z',
  });
  const a = await writeRunFolder(runs, '20261201-090000-eval-a', [{ task: TASK, resolved: [false, true] }], {
    policy: MODEL_A,
    suite: '/suites/one',
    createdAt: '2026-12-01T09:00:00Z',
  });
  await writeRunFolder(runs, '20261201-100000-eval-b', [{ task: TASK, resolved: [false] }], {
    policy: 'onnx:/models/nano-b',
    suite: '/suites/two',
    createdAt: '2026-12-01T10:00:00Z',
  });
  writeFileSync(
    join(a, RUN_META_FILE),
    JSON.stringify({ schema: RUN_META_SCHEMA, name: 'nano A greedy', tags: [], notes: '', updatedAt: null }),
  );
  ({ serve, browser, page } = await openLabInChromium(data, { viewport: { width: 1440, height: 900 } }));
  await page.goto(`${serve.url}#/tasks`);
  await page.locator(`tr[data-task="${TASK}"]`).first().waitFor({ timeout: 60_000 });
}, 120_000);

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const passCell = () => page.locator(`tr[data-task="${TASK}"] td[data-key="pass"]`).first().textContent();
const historyRuns = () =>
  page.getByTestId('task-history-run').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run')));

describe('the Tasks page’s pass rate by policy, model and suite', () => {
  test('by default the oracle is left out; every policy, the oracle alone, a model or a suite on request', async () => {
    expect(await page.getByTestId('pass-policy').inputValue()).toBe('!oracle');
    await poll(passCell).toBe('33% · 1/3');
    await page.getByTestId('pass-policy').selectOption('');
    await poll(passCell).toBe('60% · 3/5');
    await page.getByTestId('pass-policy').selectOption('oracle');
    await poll(passCell).toBe('100% · 2/2');
    await page.getByTestId('pass-policy').selectOption('');
    await page.getByTestId('pass-model').selectOption(MODEL_A);
    await poll(passCell).toBe('50% · 1/2');
    await page.getByTestId('pass-model').selectOption('');
    await page.getByTestId('pass-suite').selectOption('/suites/two');
    await poll(passCell).toBe('0% · 0/1');
    await page.getByTestId('pass-suite').selectOption('');
    await page.getByTestId('pass-policy').selectOption('!oracle');
    await poll(passCell).toBe('33% · 1/3');
  });

  test('the history follows the filter and names its runs', async () => {
    await page.locator(`tr[data-task="${TASK}"]`).first().click();
    await poll(historyRuns).toEqual(['20261201-100000-eval-b', '20261201-090000-eval-a']);
    expect(
      await page
        .locator('[data-testid="task-history-run"][data-run="20261201-090000-eval-a"] td')
        .first()
        .textContent(),
    ).toBe('nano A greedy');
    expect(
      await page
        .locator('[data-testid="task-history-run"][data-run="20261201-100000-eval-b"] td')
        .first()
        .textContent(),
    ).toBe('nano-b on two');
    await page.getByTestId('pass-policy').selectOption('');
    await poll(historyRuns).toHaveLength(3);
    expect(await page.getByTestId('task-pass-summary').textContent()).toBe(
      'Resolved in 3 of 5 episodes (60%) over 3 runs.',
    );
  });
});
