/**
 * The Shell page in Chromium against `t1lab serve`: open a sandboxed shell, type into xterm.js, see the
 * output, see the limits and network state beside it, resize, exit, close.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir('t1lab-e2e-shell-');

beforeAll(async () => {
  ({ serve, browser, page } = await openLabInChromium(home.path, { viewport: { width: 1280, height: 800 } }));
  await page.goto(`${serve.url}#/shell`);
});
afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

/** The text xterm.js shows (its DOM renderer's rows). */
const screenText = (p: Page) => p.locator('.xterm-rows').innerText();

describe('Shell page', () => {
  it('shows the default limits and the network state before a shell is open', async () => {
    const panel = page.getByTestId('sandbox-panel');
    await expect.poll(() => panel.innerText(), { timeout: 30_000 }).toContain('2048 MiB');
    expect(await panel.innerText()).toMatch(/off: no network/);
    expect(await panel.locator('td[data-key="deadline"]').innerText()).toBe('none');
  });

  it('opens a sandboxed shell, runs what is typed and shows the output', async () => {
    await page.getByLabel('memory').fill('512');
    await page.getByRole('button', { name: 'Open shell' }).click();
    await expect.poll(() => page.getByTestId('sandbox-panel').innerText(), { timeout: 30_000 }).toContain('running');
    await expect.poll(() => screenText(page), { timeout: 30_000 }).toContain('root@sandbox:/app#');
    await page.locator('.xterm-helper-textarea').focus();
    await page.keyboard.type('echo e2e-$((6*7)) $(id -u) $PWD; ls /home 2>&1 | head -1');
    await page.keyboard.press('Enter');
    await expect.poll(() => screenText(page), { timeout: 15_000 }).toContain('e2e-42 0 /app');
    await expect.poll(() => screenText(page), { timeout: 15_000 }).toContain('No such file or directory');
    const panel = await page.getByTestId('sandbox-panel').innerText();
    expect(panel).toContain('512 MiB');
    expect(panel).toMatch(/temporary \/.*t1lab-terminal-.* → \/app/);
  });

  it('resizes the shell with the window', async () => {
    await page.keyboard.type('stty size');
    await page.keyboard.press('Enter');
    await expect.poll(() => screenText(page)).toMatch(/\n\d+ \d+\n/);
    const before = (await screenText(page))
      .match(/\n(\d+) (\d+)\n/)
      ?.slice(1)
      .map(Number);
    await page.setViewportSize({ width: 900, height: 600 });
    await expect
      .poll(() => page.getByTestId('sandbox-panel').locator('td[data-key="size"]').innerText())
      .not.toBe(`${before?.[1]}×${before?.[0]}`);
    await page.keyboard.type('clear; stty size');
    await page.keyboard.press('Enter');
    const size = await page.getByTestId('sandbox-panel').locator('td[data-key="size"]').innerText();
    const [cols, rows] = size.split('×');
    await expect.poll(() => screenText(page)).toContain(`${rows} ${cols}`);
  });

  it('shows when the shell exits, then closes it', async () => {
    await page.keyboard.type('exit 3');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.getByTestId('sandbox-panel').innerText(), { timeout: 15_000 })
      .toContain('exited (code 3)');
    await page.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => page.getByTestId('sandbox-panel').innerText()).toContain('not open');
  });

  it('explains a workspace that cannot be used', async () => {
    await page.getByLabel('workspace').fill('/definitely/not/here');
    await page.getByRole('button', { name: 'Open shell' }).click();
    await expect
      .poll(() => page.getByTestId('shell-error').innerText(), { timeout: 15_000 })
      .toMatch(/does not exist; create it first/);
  });
});
