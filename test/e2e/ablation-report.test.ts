/** report.html of an ablation opens in Chromium as a self-contained page: charts drawn, tables filled. */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { writeAblationReport } from '../../electron/lab/experiments/ablate-report';
import { writeAblationFixture } from '../helpers/ablation-fixture';
import { launchChromium } from '../helpers/browser';
import { makeTempDir } from '../helpers/tmp';

const tmp = makeTempDir();
afterAll(() => tmp.remove());

test('the ablation report opens in Chromium with its learning curves and tables', async () => {
  const cells = await writeAblationFixture(tmp.path);
  const { html } = writeAblationReport(
    tmp.path,
    [{ key: 'reward', values: ['dense', 'binary'] }],
    { reward: 'dense' },
    cells,
  );
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(html).href);
    expect(await page.locator('svg[role="img"]').count()).toBe(2);
    expect(await page.locator('polyline').count()).toBe(4);
    expect(await page.locator('table').first().innerText()).toContain('reward-binary');
    const shot = join(tmp.path, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect(existsSync(shot) && statSync(shot).size).toBeGreaterThan(10_000);
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
});
