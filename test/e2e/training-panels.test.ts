/**
 * The Training page's panels in Chromium, on a 3-step run: metrics that hold one value (lr, loss_drift) are
 * hidden until "show constant metrics (N)" is ticked; a panel's header gives each overlaid run's last value
 * in its colour; the run's config box is compact, so the charts start near the top.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';
import { writeTrainingRun } from '../helpers/training-run';

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
const RUN = '20261201-100000-ppo-three';
const OTHER = '20261201-090000-ppo-other';
const dirs: Record<string, string> = {};

beforeAll(async () => {
  dirs[RUN] = writeTrainingRun(data, RUN, { steps: 3, seed: 1 });
  dirs[OTHER] = writeTrainingRun(data, OTHER, { steps: 3, seed: 2 });
  ({ serve, browser, page } = await openLabInChromium(data, { viewport: { width: 1280, height: 900 } }));
  await page.goto(`${serve.url}#/training/${RUN}`);
  await chart('pg_loss').waitFor({ timeout: 20_000 });
}, 120_000);

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const chart = (metric: string) => page.locator(`[data-testid="metric-chart"][data-metric="${metric}"]`);
const panelCount = async () => Number(await page.getByTestId('chart-grid').getAttribute('data-panels'));
/** The header figure as formatY writes it: four significant digits. */
const lastLogged = (runId: string, key: string) => {
  const rows = readFileSync(join(dirs[runId]!, 'metrics.jsonl'), 'utf8').trim().split('\n');
  return Number((JSON.parse(rows.at(-1)!) as Record<string, number>)[key]!.toPrecision(4)).toString();
};

describe('Training panels', () => {
  test('constant metrics are hidden until asked for, and counted', async () => {
    expect(await chart('lr').count()).toBe(0);
    expect(await chart('loss_drift').count()).toBe(0);
    const toggle = page.getByTestId('show-constant');
    const label = (await toggle.textContent()) ?? '';
    const hidden = Number(/show constant metrics \((\d+)\)/.exec(label)?.[1]);
    expect(hidden, label).toBeGreaterThanOrEqual(2);
    const shown = await panelCount();
    await toggle.locator('input').check();
    await chart('lr').waitFor();
    expect(await chart('loss_drift').count()).toBe(1);
    expect(await panelCount()).toBe(shown + hidden);
    await toggle.locator('input').uncheck();
    await poll(() => chart('lr').count()).toBe(0);
  });

  test('the header gives each overlaid run’s last value', async () => {
    await page.locator(`[data-testid="training-run-row"][data-run="${OTHER}"]`).getByTestId('overlay-toggle').check();
    await poll(() => chart('pg_loss').getAttribute('data-runs')).toBe('2');
    const values = chart('pg_loss').locator('figcaption [data-testid="last-value"]');
    await poll(() => values.count()).toBe(2);
    const byRun = Object.fromEntries(
      await values.evaluateAll((els) => els.map((e) => [e.getAttribute('data-run'), e.textContent])),
    );
    expect(byRun).toEqual({ [RUN]: lastLogged(RUN, 'pg_loss'), [OTHER]: lastLogged(OTHER, 'pg_loss') });
  });

  test('several metrics on one chart: a line per metric and run, kept in the address, removable', async () => {
    // OTHER is overlaid (the header test): 2 metrics × 2 runs.
    await page.getByTestId('combine-input').fill('pg_loss + vf_loss');
    await page.getByTestId('combine-add').click();
    const combined = page
      .getByTestId('group-combined')
      .locator('[data-testid="metric-chart"][data-metric="pg_loss+vf_loss"]');
    await combined.waitFor();
    expect(await combined.getAttribute('data-runs')).toBe('4');
    expect((await combined.getAttribute('data-colours'))!.split(' ')).toHaveLength(2);
    expect(await combined.getByTestId('run-key-item').count()).toBe(2);
    // (URLSearchParams writes + as %2B; the hash segment is encoded once more.)
    await poll(() => decodeURIComponent(decodeURIComponent(page.url()))).toContain('c=pg_loss+vf_loss');
    await page.getByTestId('combine-input').fill('pg_loss + no_such_metric');
    await page.getByTestId('combine-add').click();
    expect(await page.getByTestId('combine-error').textContent()).toBe('not logged: no_such_metric');
    await page.reload();
    await combined.waitFor({ timeout: 20_000 });
    await combined.getByTestId('remove-chart').click();
    await poll(() => page.getByTestId('group-combined').count()).toBe(0);
    expect(decodeURIComponent(page.url())).not.toContain('c=');
  });

  test('the run’s config box is compact (300 px at most), not a tall box above the charts', async () => {
    // Measured once the config (the full TOML, defaults filled in) is there: an empty box is short anyway.
    await page.getByTestId('run-config-toml').waitFor({ timeout: 20_000 });
    const details = (await page.getByTestId('run-details').boundingBox())!;
    expect(details.height).toBeLessThanOrEqual(300);
    // A long config (a full PPO recipe is ~80 lines) scrolls inside a box of about ten lines, not 360 px.
    const maxHeight = (await page.evaluate(
      `parseFloat(getComputedStyle(document.querySelector('[data-testid="run-config-toml"]')).maxHeight)`,
    )) as number;
    expect(maxHeight).toBeLessThanOrEqual(200);
  });
});
