/**
 * The Training page's charts in Chromium, on small training runs in the trainer's layout: a metric family
 * is one chart with a line per category, panels are searched by regex and pinned, rates sit on [0, 1], x
 * ticks do not repeat and every panel shares one x range, a 3-step run is not "decimated", the view
 * survives a reload (it lives in the URL) and a run keeps its colour whichever run is primary.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';

/** The page waits on the host, and the host on a loaded machine: poll for longer than vitest's 1 s default. */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
const SMALL = '20261201-100000-ppo-small';
const OTHER = '20261201-090000-ppo-other';
const CATEGORIES = ['debugging', 'file-operations', 'security', 'data-processing', 'networking'];
const T0 = Date.parse('2026-12-01T10:00:00Z') / 1000;

function writeRun(id: string, createdAt: string, steps: number, secondsPerStep: number): void {
  const dir = join(data, 'training', id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'run.json'),
    JSON.stringify({
      schema: 't1lab.training-run/1',
      id,
      stage: 'ppo',
      createdAt,
      config: { schedule: { steps } },
      checkpoints: [],
    }),
  );
  writeFileSync(join(dir, 'status.json'), JSON.stringify({ state: 'completed', step: steps, totalSteps: steps }));
  let text = '';
  for (let step = 1; step <= steps; step++) {
    // resolved moves (0, 0.25, 0.5): a panel that holds one value is hidden by default.
    const row: Record<string, number> = {
      step,
      tokens: step * 4096,
      wall_time: T0 + step * secondsPerStep,
      reward_dense: step / 2,
      resolved: (step - 1) / 4,
      pg_loss: 0.1 / step,
    };
    // vf_loss is logged on the first steps only: its panel still spans the run's whole x range.
    if (step < steps) row.vf_loss = 1 / step;
    CATEGORIES.forEach((c, i) => (row[`reward_dense/${c}`] = (i + step) / 4));
    text += `${JSON.stringify(row)}\n`;
  }
  writeFileSync(join(dir, 'metrics.jsonl'), text);
}

beforeAll(async () => {
  writeRun(SMALL, '2026-12-01T10:00:00Z', 3, 0.7);
  writeRun(OTHER, '2026-12-01T09:00:00Z', 3, 1.3);
  ({ serve, browser, page } = await openLabInChromium(data, { viewport: { width: 1280, height: 1000 } }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const chart = (metric: string) => page.locator(`[data-testid="metric-chart"][data-metric="${metric}"]`);
const ticks = async (metric: string) =>
  ((await chart(metric).getAttribute('data-x-ticks')) ?? '').split(' ').filter(Boolean);

describe('Training charts', () => {
  test('a metric family is one chart with a line per category, with a legend that follows the mouse', async () => {
    // Unsmoothed (s=0, from the address), so the legend reads the logged values.
    await page.goto(`${serve.url}#/training/${SMALL}/${encodeURIComponent('s=0')}`);
    const family = chart('reward_dense/*');
    await family.waitFor({ timeout: 20_000 });
    expect(await family.getAttribute('data-runs')).toBe(String(CATEGORIES.length));
    expect(await page.locator('[data-testid="metric-chart"][data-metric^="reward_dense/"]').count()).toBe(1);
    const legend = await family.locator('.u-legend').innerText();
    for (const c of CATEGORIES) expect(legend).toContain(c);
    // The run's details and its held-out chart sit above the charts: bring the chart under the mouse first.
    await family.scrollIntoViewIfNeeded();
    const box = (await family.locator('.u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
    // At step 3, debugging (index 0) is (0 + 3) / 4.
    await poll(() =>
      family
        .locator('.u-series')
        .filter({ has: page.locator('.u-label', { hasText: /^debugging$/ }) })
        .locator('.u-value')
        .textContent(),
    ).toBe('0.75');
  });

  test('rates on [0, 1], x ticks that do not repeat, one x range across panels, no "decimated" for 3 steps', async () => {
    await poll(() => chart('resolved').getAttribute('data-y-range')).toBe('0 1');
    for (const axis of ['step', 'wall'] as const) {
      await page.getByTestId('x-axis').selectOption(axis);
      await poll(() => chart('pg_loss').getAttribute('data-x-axis')).toBe(axis);
      await poll(() => ticks('pg_loss')).not.toEqual([]);
      for (const metric of ['pg_loss', 'vf_loss', 'resolved']) {
        const labels = await ticks(metric);
        expect(new Set(labels).size, `${axis} ${metric}: ${labels.join(' ')}`).toBe(labels.length);
      }
      expect(await chart('vf_loss').getAttribute('data-x-range')).toBe(
        await chart('pg_loss').getAttribute('data-x-range'),
      );
    }
    await page.getByTestId('x-axis').selectOption('step');
    expect(await page.getByTestId('run-legend').innerText()).not.toContain('decimated');
  });

  test('panels are searched by regex and pinned', async () => {
    await page.getByTestId('panel-search').fill('^(pg|vf)_');
    await poll(() =>
      page.getByTestId('metric-chart').evaluateAll((els) => els.map((e) => e.getAttribute('data-metric')).sort()),
    ).toEqual(['pg_loss', 'vf_loss']);
    await page.getByTestId('panel-search').fill('(');
    await poll(() => page.getByTestId('chart-toolbar').innerText()).toContain('not a regular expression');
    await page.getByTestId('panel-search').fill('');
    await chart('resolved').getByTestId('pin-toggle').click();
    await poll(() => page.getByTestId('group-pinned').locator('[data-metric="resolved"]').count()).toBe(1);
    // A pinned panel stays when the search would hide it.
    await page.getByTestId('panel-search').fill('^pg_');
    await poll(() =>
      page.getByTestId('metric-chart').evaluateAll((els) => els.map((e) => e.getAttribute('data-metric')).sort()),
    ).toEqual(['pg_loss', 'resolved']);
  });

  test('the view lives in the URL: run, overlays, x axis, smoothing, log scale, search and pins survive a reload', async () => {
    await page.locator(`[data-testid="training-run-row"][data-run="${OTHER}"]`).getByTestId('overlay-toggle').check();
    await poll(() => chart('pg_loss').getAttribute('data-runs')).toBe('2');
    await page.getByTestId('x-axis').selectOption('wall');
    await chart('pg_loss').getByTestId('log-toggle').uncheck();
    await page.getByTestId('smoothing').fill('0.3');
    await poll(() => decodeURIComponent(page.url())).toContain('s=0.3');
    await page.reload();
    await chart('pg_loss').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('x-axis').inputValue()).toBe('wall');
    expect(await page.getByTestId('smoothing').inputValue()).toBe('0.3');
    expect(await page.getByTestId('panel-search').inputValue()).toBe('^pg_');
    await poll(() => chart('pg_loss').getAttribute('data-runs')).toBe('2');
    expect(await chart('pg_loss').getAttribute('data-log')).toBe('false');
    expect(await page.getByTestId('group-pinned').locator('[data-metric="resolved"]').count()).toBe(1);
    expect(await page.locator(`[data-testid="training-run-row"][data-run="${SMALL}"]`).getAttribute('class')).toContain(
      'selected',
    );
  });

  test('a run keeps its colour whichever run is primary', async () => {
    const colourOf = (id: string) =>
      page.locator(`[data-testid="legend-run"][data-run="${id}"]`).getAttribute('data-colour');
    const before = [await colourOf(SMALL), await colourOf(OTHER)];
    expect(before[0]).not.toBe(before[1]);
    await page.locator(`[data-testid="training-run-row"][data-run="${OTHER}"]`).click();
    await poll(() => page.url()).toContain(`/training/${OTHER}`);
    expect([await colourOf(SMALL), await colourOf(OTHER)]).toEqual(before);
  });

  test('a family chart with an overlay: colours are categories and none is a run’s; line styles are runs, keyed', async () => {
    // Both runs are charted (the overlay of the URL test, then the other run made primary).
    await page.getByTestId('panel-search').fill('');
    const family = chart('reward_dense/*');
    await poll(() => family.getAttribute('data-runs')).toBe(String(2 * CATEGORIES.length));
    const colours = (await family.getAttribute('data-colours'))!.split(' ');
    expect(colours).toHaveLength(CATEGORIES.length);
    const runColours = await page
      .getByTestId('legend-run')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-colour')));
    expect(runColours).toHaveLength(2);
    expect(colours.filter((c) => runColours.includes(c))).toEqual([]);
    const key = await family
      .getByTestId('run-key-item')
      .evaluateAll((els) => els.map((e) => [e.getAttribute('data-run'), e.getAttribute('data-dash')]));
    expect(key.map(([run]) => run).sort()).toEqual([OTHER, SMALL].sort());
    expect(new Set(key.map(([, dash]) => dash)).size).toBe(2);
    // A one-metric chart keeps the runs' own colours and needs no key.
    expect((await chart('pg_loss').getAttribute('data-colours'))!.split(' ').sort()).toEqual([...runColours].sort());
    expect(await chart('pg_loss').getByTestId('run-key').count()).toBe(0);
  });
});
