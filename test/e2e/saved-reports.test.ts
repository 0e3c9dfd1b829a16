/**
 * Saved reports in Chromium: two reports of the Runs page saved under names are listed, survive a reload,
 * open by their address in another tab (and in a browser with nothing stored: they live in the data folder,
 * where `t1lab runs reports` lists them), are renamed (the address stays) and deleted; a duplicate name is
 * refused with the existing report named, and a damaged report file is shown by its path and left alone.
 * Needs `npm run build`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { poll, useLabInChromium } from '../helpers/lab-suite';
import { writeRunFolder } from '../helpers/runs';
import { waitForRunRows } from '../helpers/runs-page';
import { writeTrainingRun } from '../helpers/training-run';

const TRAINING = '20261201-100000-ppo-report';

const lab = useLabInChromium({
  prepare: async (data) => {
    await writeRunFolder(join(data, 'runs'), 'eval-a', [{ task: 't0', resolved: [true] }], {
      createdAt: '2026-12-01T01:00:00Z',
    });
    await writeRunFolder(join(data, 'runs'), 'eval-b', [{ task: 't0', resolved: [false] }], {
      createdAt: '2026-12-01T02:00:00Z',
    });
    writeTrainingRun(data, TRAINING, { steps: 5, seed: 1 });
  },
  page: { viewport: { width: 1280, height: 900 } },
  // The test opens a second tab on a report's address.
  tabs: true,
});
const reports = join(lab.data, 'reports');

const row = (p: Page, name: string) => p.locator(`[data-testid="saved-report"][data-name="${name}"]`);
const listed = (p: Page) =>
  p.getByTestId('saved-report').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')));
const hash = async (p: Page) => decodeURIComponent(await p.evaluate<string>('location.hash'));

/** Open the report form on the checked runs, set a title, save it under `name`. */
async function saveReport(name: string, title: string, training: boolean) {
  const { page } = lab;
  await page.getByTestId('report-open').click();
  await page.getByTestId('report-title').fill(title);
  const box = page.getByLabel(`report ${TRAINING}`);
  if ((await box.isChecked()) !== training) await box.click();
  await page.getByTestId('report-name').fill(name);
  await page.getByTestId('report-save').click();
}

describe('saved reports', () => {
  test('two reports saved by name, listed after a reload, opened by address, renamed and deleted', async () => {
    const { page, serve, browser } = lab;
    await page.goto(`${serve.url}#/runs`);
    await waitForRunRows(page, 2);
    expect(await page.getByTestId('saved-reports').count()).toBe(0);

    await page.getByLabel('compare eval-a').check();
    await saveReport('Seeds, PPO', 'Seeds', true);
    await poll(() => hash(page)).toBe('#/runs/report/seeds-ppo');
    await poll(() => page.getByTestId('report-saved-name').textContent()).toContain('Seeds, PPO');
    const saved = JSON.parse(readFileSync(join(reports, 'seeds-ppo.json'), 'utf8')) as Record<string, unknown>;
    expect(saved).toMatchObject({ name: 'Seeds, PPO', title: 'Seeds', evalRuns: ['eval-a'], trainingRuns: [TRAINING] });

    // The second: another evaluation run, no training run.
    await page.getByRole('button', { name: 'Close' }).click();
    await poll(() => hash(page)).toBe('#/runs');
    await page.getByLabel('compare eval-a').uncheck();
    await page.getByLabel('compare eval-b').check();
    await saveReport('Baseline', 'Baseline only', false);
    await poll(() => hash(page)).toBe('#/runs/report/baseline');

    // A name another report has (in other case) is refused, naming it; nothing is written.
    await page.getByRole('button', { name: 'Close' }).click();
    await saveReport(' seeds, ppo ', 'Dup', false);
    await poll(() => page.getByTestId('reports-error').textContent()).toContain(
      `a report named 'Seeds, PPO' exists (${join(reports, 'seeds-ppo.json')})`,
    );
    expect(await hash(page)).toBe('#/runs');
    await page.getByRole('button', { name: 'Close' }).click();

    // Listed by name after a reload.
    await page.reload();
    await poll(() => listed(page)).toEqual(['Baseline', 'Seeds, PPO']);

    // Opened by its address, pasted into another tab: the saved title, runs and chart.
    const address = new URL(`#/runs/report/seeds-ppo`, page.url()).href;
    const tab = await page.context().newPage();
    await tab.goto(address);
    await poll(() => tab.getByTestId('report-form').getAttribute('data-report')).toBe('seeds-ppo');
    expect(await tab.getByTestId('report-title').inputValue()).toBe('Seeds');
    expect(await tab.getByLabel(`report ${TRAINING}`).isChecked()).toBe(true);
    await poll(() => tab.getByLabel('compare eval-a').isChecked()).toBe(true);
    expect(await tab.getByLabel('compare eval-b').isChecked()).toBe(false);
    await poll(() => tab.locator('[data-testid="report-chart"][data-metric="reward_dense"]').count()).toBe(1);
    expect(await tab.getByTestId('report-saved-name').textContent()).toContain('as saved');
    // A browser with nothing stored opens it too: the report lives in the data folder.
    const fresh = await browser.newPage();
    await fresh.goto(`${serve.url}#/runs/report/baseline`);
    await poll(() => fresh.getByTestId('report-form').getAttribute('data-report')).toBe('baseline');
    expect(await fresh.getByTestId('report-title').inputValue()).toBe('Baseline only');
    await fresh.close();

    // Edited and saved over: the same file, the address unchanged.
    await tab.getByTestId('report-notes').fill('final notes');
    await poll(() => tab.getByTestId('report-saved-name').textContent()).toContain('changed since saved');
    await tab.getByTestId('report-save').click();
    await poll(() => tab.getByTestId('report-saved-name').textContent()).toContain('as saved');
    expect(JSON.parse(readFileSync(join(reports, 'seeds-ppo.json'), 'utf8'))).toMatchObject({ notes: 'final notes' });
    await tab.close();

    // Renamed: a name another report has is refused; a new one is listed, and the address still opens it.
    await row(page, 'Seeds, PPO').getByTestId('report-rename').click();
    await page.getByTestId('report-rename-input').fill('baseline');
    await page.getByTestId('report-rename-input').press('Enter');
    await poll(() => page.getByTestId('reports-error').textContent()).toContain("a report named 'Baseline' exists");
    await page.getByTestId('report-rename-input').fill('Seeds (final)');
    await page.getByTestId('report-rename-input').press('Enter');
    await poll(() => listed(page)).toEqual(['Baseline', 'Seeds (final)']);
    expect(await page.getByTestId('reports-error').count()).toBe(0);
    await row(page, 'Seeds (final)').getByTestId('report-link').click();
    await poll(() => hash(page)).toBe('#/runs/report/seeds-ppo');
    await poll(() => page.getByTestId('report-saved-name').textContent()).toContain('Seeds (final)');
    expect(await page.getByTestId('report-notes').inputValue()).toBe('final notes');

    // Deleted while open: the form closes, the file is gone, the other report stays.
    await row(page, 'Seeds (final)').getByTestId('report-delete').click();
    await row(page, 'Seeds (final)').getByTestId('report-delete-confirm').click();
    await poll(() => listed(page)).toEqual(['Baseline']);
    await poll(() => hash(page)).toBe('#/runs');
    expect(await page.getByTestId('report-form').count()).toBe(0);
    expect(existsSync(join(reports, 'seeds-ppo.json'))).toBe(false);
    await page.reload();
    await poll(() => listed(page)).toEqual(['Baseline']);

    // An address of no report says so.
    await page.goto(`${serve.url}#/runs/report/seeds-ppo`);
    await poll(() => page.getByTestId('report-unreadable').textContent()).toContain("no report 'seeds-ppo'");
  });

  test('a damaged report file is shown by its path and field, and left as it is', async () => {
    const { page, serve } = lab;
    const broken = join(reports, 'broken.json');
    const bytes = JSON.stringify({ schema: 't1lab.report/1', id: 'broken', name: 'Broken', title: 3 });
    writeFileSync(broken, bytes);
    await page.goto(`${serve.url}#/runs`);
    await poll(() => page.getByTestId('report-problem').textContent()).toContain(`${broken}: field 'title'`);
    expect(await listed(page)).not.toContain('Broken');
    await page.goto(`${serve.url}#/runs/report/broken`);
    await poll(() => page.getByTestId('report-unreadable').textContent()).toContain(`${broken}: field 'title'`);
    expect(readFileSync(broken, 'utf8')).toBe(bytes);
  });
});
