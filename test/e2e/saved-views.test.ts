/**
 * Saved views in Chromium: the Training page's view (overlay, panel search, a pin) saved under a name in the
 * sidebar comes back from another page with one click, survives a reload, and is forgotten on request.
 * Needs `npm run build`.
 */
import { describe, expect, test } from 'vitest';
import { poll, useLabInChromium } from '../helpers/lab-suite';
import { writeTrainingRun } from '../helpers/training-run';

const RUN = '20261201-100000-ppo-view';
const OTHER = '20261201-090000-ppo-other';

const lab = useLabInChromium({
  prepare: (data) => {
    writeTrainingRun(data, RUN, { steps: 5, seed: 1 });
    writeTrainingRun(data, OTHER, { steps: 5, seed: 2 });
  },
  page: { viewport: { width: 1280, height: 900 } },
});

const chart = (metric: string) => lab.page.locator(`[data-testid="metric-chart"][data-metric="${metric}"]`);
const shownMetrics = () =>
  lab.page.getByTestId('metric-chart').evaluateAll((els) => els.map((e) => e.getAttribute('data-metric')).sort());

describe('saved views', () => {
  test('a named view opens again from another page and after a reload', async () => {
    const { page, serve } = lab;
    await page.goto(`${serve.url}#/training/${RUN}`);
    await chart('pg_loss').waitFor({ timeout: 20_000 });
    await page.locator(`[data-testid="training-run-row"][data-run="${OTHER}"]`).getByTestId('overlay-toggle').check();
    await page.getByTestId('panel-search').fill('^(pg|vf)_loss$');
    await poll(shownMetrics).toEqual(['pg_loss', 'vf_loss']);
    await poll(() => chart('pg_loss').getAttribute('data-runs')).toBe('2');
    const address = await page.evaluate('location.hash');
    await page.getByTestId('save-view').click();
    await page.getByTestId('view-name').fill('losses, both runs');
    await page.getByTestId('view-name').press('Enter');
    const saved = page.locator('[data-testid="saved-view"][data-name="losses, both runs"]');
    expect(await saved.locator('a').getAttribute('href')).toBe(address);

    await page.goto(`${serve.url}#/runs`);
    await page.reload();
    await saved.locator('a').click();
    await chart('pg_loss').waitFor({ timeout: 20_000 });
    await poll(shownMetrics).toEqual(['pg_loss', 'vf_loss']);
    await poll(() => chart('pg_loss').getAttribute('data-runs')).toBe('2');
    expect(await page.getByTestId('panel-search').inputValue()).toBe('^(pg|vf)_loss$');

    await saved.getByTestId('forget-view').click();
    await page.reload();
    await page.getByTestId('saved-views').waitFor();
    expect(await page.getByTestId('saved-view').count()).toBe(0);
  });
});
