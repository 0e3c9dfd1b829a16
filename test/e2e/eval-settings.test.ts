/**
 * An evaluation started from the Runs page can be repeated from a shell: the form sets every setting
 * `t1lab eval` takes, from the same defaults (greedy decoding), and the run's page shows the command line
 * that makes the same run. The test starts a run on the page, runs the line it shows with the real CLI and
 * compares the two run.json configurations.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RunManifest } from '../../electron/domain/runs';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { runT1lab } from '../helpers/cli';
import type { ServeProcess } from '../helpers/serve';
import { QUICK_SUITE, writeSuite } from '../helpers/tasks';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const dataDir = join(home.path, 'data');
let suite: string;

beforeAll(async () => {
  suite = writeSuite(join(home.path, 'suite'), QUICK_SUITE.slice(0, 2));
  ({ serve, browser, page } = await openLabInChromium(dataDir, { permissions: ['clipboard-read', 'clipboard-write'] }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

/** Split a POSIX command line of bare and single-quoted words (what the page prints). */
function shellSplit(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]!,
  );
}

const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as RunManifest;

/** What makes two runs the same run (not where or when they were made). */
const sameRun = (m: RunManifest) => {
  const {
    suite: s,
    policy,
    policySettings,
    harness,
    attempts,
    concurrency,
    episodeDeadlineSec,
    seed,
    tasks,
    only,
  } = m.config;
  return { suite: s, policy, policySettings, harness, attempts, concurrency, episodeDeadlineSec, seed, tasks, only };
};

describe('evaluation settings', () => {
  test('the form sets what t1lab eval takes, decodes greedily by default, and the run page shows the same run as a command line', async () => {
    await page.goto(`${serve.url}#/runs`);
    const form = page.getByTestId('new-eval');
    await form.waitFor();
    // The page's defaults are the CLI's: greedy.
    expect(await form.locator('input[name="temperature"]').inputValue()).toBe('0');
    await form.locator('input[name="suite"]').fill(suite);
    await form.locator('input[name="policy"]').fill('oracle');
    await form.locator('input[name="concurrency"]').fill('1');
    await form.locator('input[name="maxTokens"]').fill('96');
    await form.locator('input[name="agentTimeout"]').fill('45');
    await form.locator('input[name="seed"]').fill('7');
    await form.getByTestId('eval-more-settings').locator('summary').click();
    await form.locator('input[name="observationChars"]').fill('4000');
    await form.locator('input[name="episodeDeadline"]').fill('200');
    await form.getByRole('button', { name: 'Start evaluation' }).click();

    await page.getByTestId('run-detail').waitFor({ timeout: 60_000 });
    await expect
      .poll(() => page.getByTestId('run-progress').getAttribute('data-state'), { timeout: 120_000 })
      .toBe('done');
    const runs = readdirSync(join(dataDir, 'runs'));
    expect(runs).toHaveLength(1);
    const pageRun = manifestOf(join(dataDir, 'runs', runs[0]!));
    expect(pageRun.config.policySettings).toEqual({ temperature: 0, maxTokens: 96 });
    expect(pageRun.config.harness).toEqual({
      maxTurns: 300,
      contextStrategy: 'drop-oldest',
      observationChars: 4000,
      agentTimeoutSec: 45,
    });
    expect(pageRun.config.seed).toBe(7);
    expect(pageRun.config.episodeDeadlineSec).toBe(200);

    const line = await page.getByTestId('eval-command-line').innerText();
    expect(line).toMatch(/^t1lab eval --suite /);
    await page.getByTestId('copy-eval-command').click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(line);

    const words = shellSplit(line);
    expect(words.slice(0, 2)).toEqual(['t1lab', 'eval']);
    const out = join(home.path, 'shell-run');
    const shell = await runT1lab([...words.slice(1), '--out', out], {
      env: { T1LAB_HOME: dataDir },
      timeoutMs: 120_000,
    });
    expect(shell.code, shell.stderr).toBe(0);
    expect(sameRun(manifestOf(out))).toEqual(sameRun(pageRun));
  });

  test('an evaluation typed with no settings records the same defaults as the page', async () => {
    const out = join(home.path, 'plain-run');
    const shell = await runT1lab(['eval', '--suite', suite, '--policy', 'oracle', '--concurrency', '1', '--out', out], {
      env: { T1LAB_HOME: dataDir },
      timeoutMs: 120_000,
    });
    expect(shell.code, shell.stderr).toBe(0);
    const c = manifestOf(out).config;
    expect(c.policySettings).toEqual({ temperature: 0 });
    expect(c.harness).toEqual({ maxTurns: 300, contextStrategy: 'drop-oldest', observationChars: 10_000 });
  });
});
