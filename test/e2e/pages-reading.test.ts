/**
 * Reading and navigation (issue 17) in Chromium against the built web host: a Markdown instruction without
 * the task's raw HTML, the task files viewer, failures shown by their key lines, deep links to a task and
 * to an episode's turn, keyboard stepping, the pass matrix and export, comparing two runs, the recording
 * player's defaults, and layouts that hold at 1024 px.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import type { ServeProcess } from '../helpers/serve';
import { writeTask } from '../helpers/tasks';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const dataDir = join(home.path, 'data');
const tasksDir = join(dataDir, 'tasks');
let giveUp: string;

const INSTRUCTION = [
  '# Count the words',
  '',
  'Write **the number of words** of `words.txt` to `count.txt`.',
  '',
  '| file | words |',
  '| --- | --- |',
  '| words.txt | 3 |',
  '',
  '<img src="x" onerror="window.__pwned = 1"><script>window.__pwned = 2</script>',
].join('\n');

beforeAll(async () => {
  writeTask(tasksDir, {
    id: 'count-words',
    instruction: INSTRUCTION,
    files: { 'words.txt': 'one two three\n' },
    assertions: {
      'count is 3': `python3 -c "import sys; n = open('count.txt').read().strip(); assert n == '3', 'expected 3 words, found ' + repr(n)"`,
    },
    solution: 'cd /app\nwc -w < words.txt > count.txt',
  });
  giveUp = join(home.path, 'give-up.json');
  writeFileSync(
    giveUp,
    JSON.stringify({
      turns: [
        { action: { tool: 'bash', command: 'ls' } },
        { action: { tool: 'bash', command: 'echo 7 > count.txt; echo done' } },
        { action: { tool: 'submit' } },
      ],
    }),
  );
  ({ serve, browser, page } = await openLabInChromium(dataDir, {
    viewport: { width: 1024, height: 700 },
    deviceScaleFactor: 1,
  }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

async function noHorizontalScroll() {
  const [scroll, client] = (await page.evaluate(
    '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
  )) as [number, number];
  expect(scroll).toBeLessThanOrEqual(client);
}

async function runEval(policy: string): Promise<string> {
  await page.goto(`${serve.url}#/runs`);
  const form = page.getByTestId('new-eval');
  await form.locator('input[name="suite"]').fill(tasksDir);
  await form.locator('input[name="policy"]').fill(policy);
  await form.getByRole('button', { name: 'Start evaluation' }).click();
  await expect
    .poll(() => page.getByTestId('run-progress').getAttribute('data-state'), { timeout: 120_000 })
    .toBe('done');
  return (await page.getByTestId('run-detail').getAttribute('data-run'))!;
}

describe('Tasks', () => {
  test('the instruction is Markdown, the task HTML is not run, files open in a viewer, the task has a link', async () => {
    await page.goto(`${serve.url}#/tasks`);
    await page.locator('tr[data-task="count-words"]').click();
    const instruction = page.getByTestId('instruction');
    await instruction.locator('table').waitFor();
    expect(await instruction.locator('h1').textContent()).toBe('Count the words');
    expect(await instruction.locator('strong').textContent()).toBe('the number of words');
    expect(await instruction.locator('code').first().textContent()).toBe('words.txt');
    expect(await instruction.locator('img, script').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    await noHorizontalScroll();

    await page.getByTestId('task-files').locator('button[data-path="task.toml"]').click();
    await expect.poll(() => page.getByTestId('file-viewer').textContent()).toContain('[verifier]');

    // The address names the task: opening it elsewhere shows the same task.
    expect(page.url()).toMatch(/#\/tasks\/[^/]+\/count-words$/);
    const link = page.url();
    await page.goto(`${serve.url.replace(/\?.*$/, '')}#/system`);
    await page.goto(link);
    await expect
      .poll(() => page.getByTestId('task-detail').locator('h2').first().textContent(), { timeout: 15_000 })
      .toBe('count-words');
  });
});

describe('Tasks: actions', () => {
  test('"open a shell on this task" starts from a copy of its environment; "evaluate this task" prepares the form', async () => {
    await page.getByTestId('shell-on-task').click();
    await page.getByTestId('page-shell').waitFor();
    expect(await page.getByTestId('shell-task').textContent()).toContain('task count-words');
    await page.getByRole('button', { name: 'Open shell' }).click();
    await expect
      .poll(() => page.getByTestId('sandbox-panel').locator('td[data-key="state"]').textContent(), { timeout: 60_000 })
      .toBe('running');
    await page.getByTestId('terminal-screen').click();
    await page.keyboard.type('cat words.txt\n');
    await expect
      .poll(() => page.getByTestId('terminal-screen').innerText(), { timeout: 15_000 })
      .toContain('one two three');
    await page.getByRole('button', { name: 'Close' }).click();

    await page.goto(`${serve.url.replace(/\?.*$/, '')}#/tasks/${encodeURIComponent('count-words')}`);
    await page.locator('tr[data-task="count-words"]').click();
    await page.getByTestId('evaluate-task').click();
    await page.getByTestId('page-runs').waitFor();
    expect(await page.getByTestId('only-tasks').textContent()).toContain('only count-words');
    // The task's source: its own folder here (a task of a pack or a folder of tasks gets that path).
    expect(await page.getByTestId('new-eval').locator('input[name="suite"]').inputValue()).toBe(
      join(tasksDir, 'count-words'),
    );
  });
});

describe('Runs', () => {
  let oracleRun: string;
  let failedRun: string;

  test('a failure shows the failing assertion, the full output a click away', async () => {
    oracleRun = await runEval('oracle');
    failedRun = await runEval(`replay:${giveUp}`);
    await noHorizontalScroll();
    // The results follow the run's end within a moment.
    expect(await page.getByTestId('run-config').locator('td[data-key="seed"]').textContent()).toMatch(/^\d+$/);
    await expect.poll(() => page.getByTestId('histogram').count(), { timeout: 15_000 }).toBe(3);
    await page.getByTestId('run-tab-tasks').click();
    await expect
      .poll(() => page.getByTestId('pass-matrix').locator('button.cell.fail').count(), { timeout: 15_000 })
      .toBe(1);
    await page.getByTestId('pass-matrix').locator('button.cell').first().click();
    const failure = page.getByTestId('episode-viewer').getByTestId('failure-message');
    await failure.waitFor();
    const key = await failure.locator('.failure-key').textContent();
    expect(key).toContain("AssertionError: expected 3 words, found '7'");
    expect(key).not.toMatch(/Traceback/);
    await failure.locator('summary').click();
    expect(await failure.locator('.failure-full pre').textContent()).toContain('Traceback (most recent call last):');
  });

  test('an episode turn has a link; arrow keys step through turns; the player starts at 1× with turn markers', async () => {
    const viewer = page.getByTestId('episode-viewer');
    await viewer.focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByTestId('turn-label').textContent()).toBe('turn 2 / 3');
    expect(page.url()).toMatch(new RegExp(`#/runs/${failedRun}/count-words%400/2$`));
    const link = page.url();
    await page.goto(`${serve.url.replace(/\?.*$/, '')}#/tasks`);
    await page.goto(link);
    await expect.poll(() => page.getByTestId('turn-label').textContent(), { timeout: 15_000 }).toBe('turn 2 / 3');
    expect(await page.getByTestId('turn-actions').textContent()).toContain('echo 7 > count.txt; echo done');
    await page.getByTestId('whole-transcript').check();
    expect(await page.getByTestId('transcript').locator('> li').count()).toBe(3);

    await page.getByTestId('load-recording').click();
    const player = page.getByTestId('cast-player');
    await player.waitFor();
    expect(await page.getByTestId('cast-speed').inputValue()).toBe('1');
    expect(await page.getByTestId('cast-marker').count()).toBe(3);
    // Poster frame: the last screen is drawn before anything plays.
    await expect.poll(() => player.locator('.cast-screen').innerText()).toContain('done');
    await player.focus();
    await page.keyboard.press('Home');
    expect(Number(await page.getByTestId('cast-position').inputValue())).toBe(0);
  });

  test('exports the episodes as CSV', async () => {
    await page.getByTestId('run-tab-overview').click();
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
    const csv = readFileSync((await file.path())!, 'utf8');
    expect(csv.split('\n')[0]).toMatch(/^key,task,attempt,category,difficulty,resolved,/);
    expect(csv).toContain('count-words@0,count-words,0,');
  });

  test('compares two runs task by task', async () => {
    await page.goto(`${serve.url.replace(/\?.*$/, '')}#/runs`);
    await page.getByLabel(`compare ${oracleRun}`).check();
    await page.getByLabel(`compare ${failedRun}`).check();
    await page.getByTestId('compare-runs').click();
    const diff = page.getByTestId('task-diff');
    await diff.waitFor();
    const row = diff.locator('tr[data-task="count-words"]');
    // A is the run checked first.
    expect(await row.getAttribute('data-change')).toBe('lost');
    expect(await page.getByTestId('compare-summary').textContent()).toContain('loses 1');
    // The one compare view: the paired tests of the Compare box, here too.
    await expect.poll(() => page.getByTestId('comparison').count(), { timeout: 20_000 }).toBe(1);
  });
});
