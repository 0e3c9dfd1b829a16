/**
 * The runs table's columns of your choosing and the scatter of runs, in Chromium: any setting or result of
 * the runs is a column, sortable, filterable (`KEY>N`) and kept by a reload; the scatter places the shown
 * runs, or only the checked ones, by two fields. Needs `npm run build`.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { poll, useLabInChromium } from '../helpers/lab-suite';
import { exportReportOffline, waitForRunRows, writeEvalRuns, type EvalRunFixture } from '../helpers/runs-page';

const TEMPERATURE = 'config.policySettings.temperature';
/** Three runs at temperatures 0, 0.5 and 1 that resolve 3, 2 and 1 of 4 tasks. */
const RUNS: EvalRunFixture[] = [
  { id: 'run-cold', policySettings: { temperature: 0 }, resolved: 3 },
  { id: 'run-warm', policySettings: { temperature: 0.5 }, resolved: 2 },
  { id: 'run-hot', policySettings: { temperature: 1 }, resolved: 1 },
];

const lab = useLabInChromium({
  prepare: (data) => writeEvalRuns(data, RUNS),
  page: { viewport: { width: 1280, height: 900 } },
});

beforeAll(async () => {
  await lab.page.goto(`${lab.serve.url}#/runs`);
  await waitForRunRows(lab.page, RUNS.length);
});

const ids = () => lab.page.getByTestId('run-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run')));
const cells = () => lab.page.locator(`table.runs td[data-key="f:${TEMPERATURE}"]`).allTextContents();

describe('runs table: columns of your choosing', () => {
  test('a setting as a column: shown, sorted, filtered, kept by a reload', async () => {
    const { page } = lab;
    await page.getByTestId('runs-add-column').selectOption(TEMPERATURE);
    const header = page.locator(`table.runs th[data-sort="f:${TEMPERATURE}"]`);
    await header.waitFor();
    expect(await header.textContent()).toBe('temperature');
    await header.click();
    await poll(cells).toEqual(['0', '0.5', '1']);
    await header.click();
    await poll(ids).toEqual(['run-hot', 'run-warm', 'run-cold']);
    await page.getByTestId('runs-filter').fill(`${TEMPERATURE}>0.2`);
    await poll(ids).toEqual(['run-hot', 'run-warm']);
    await page.getByTestId('runs-filter').fill('summary.resolvedRate<0.5');
    await poll(ids).toEqual(['run-hot']);
    await page.getByTestId('runs-filter').fill('');
    await page.reload();
    await waitForRunRows(page, RUNS.length);
    expect(await cells()).toEqual(['1', '0.5', '0']);
  });

  test('the scatter places the shown runs, or the checked ones, by two fields', async () => {
    const { page } = lab;
    await page.getByTestId('runs-scatter').locator('summary').click();
    await page.getByTestId('scatter-x').selectOption(TEMPERATURE);
    await page.getByTestId('scatter-y').selectOption('summary.resolvedRate');
    const points = () =>
      page
        .getByTestId('scatter-point')
        .evaluateAll((ps) =>
          ps.map((p) => [
            p.getAttribute('data-run'),
            Number(p.getAttribute('data-x')),
            Number(p.getAttribute('data-y')),
          ]),
        );
    await poll(points).toHaveLength(3);
    expect((await points()).sort()).toEqual([
      ['run-cold', 0, 0.75],
      ['run-hot', 1, 0.25],
      ['run-warm', 0.5, 0.5],
    ]);
    await page.getByLabel('compare run-cold').check();
    await page.getByLabel('compare run-hot').check();
    await poll(points).toHaveLength(2);
    expect(await page.getByTestId('runs-scatter').locator('summary').textContent()).toBe(
      'Scatter of the 2 checked runs',
    );
  });

  test('parallel coordinates: an axis per added numeric column and result, a line per checked run', async () => {
    const { page } = lab;
    await page.getByTestId('runs-parallel').locator('summary').click();
    const plot = page.getByTestId('parallel-plot');
    expect(await plot.getAttribute('data-axes')).toBe(`${TEMPERATURE} summary.resolvedRate summary.meanReward`);
    const lines = await page
      .getByTestId('parallel-line')
      .evaluateAll((ls) => ls.map((l) => l.getAttribute('data-run')).sort());
    expect(lines).toEqual(['run-cold', 'run-hot']);
    // run-cold: the lowest temperature, the highest resolved rate (the top of the axis).
    const first = (id: string) =>
      page.locator(`[data-testid="parallel-line"][data-run="${id}"]`).evaluate((l) =>
        l
          .getAttribute('points')!
          .split(' ')
          .map((p: string) => p.split(',').map(Number)),
      );
    const [cold, hot] = [await first('run-cold'), await first('run-hot')];
    expect(cold[0]![1]).toBeGreaterThan(hot[0]![1]!);
    expect(cold[1]![1]).toBeLessThan(hot[1]![1]!);
  });

  test('a report of the checked runs is one HTML file that opens offline', async () => {
    const { page } = lab;
    // run-cold and run-hot are checked (the scatter test); the temperature column was added.
    await page.getByTestId('report-open').click();
    await page.getByTestId('report-title').fill('Temperature sweep');
    await page.getByTestId('report-notes').fill('# Findings\n\n- **greedy** resolves most\n- see `run-hot`');
    const { download, html, offline, close } = await exportReportOffline(lab);
    expect(download.suggestedFilename()).toMatch(/^report-\d{4}-\d{2}-\d{2}\.html$/);
    // Nothing to fetch: no script, no external address, no linked style or image.
    expect(html).not.toMatch(/<script|<link|\ssrc=|https?:\/\//i);
    expect(await offline.locator('h1').first().textContent()).toBe('Temperature sweep');
    expect(await offline.locator('.notes h2').textContent()).toBe('Findings');
    expect(await offline.locator('.notes li strong').textContent()).toBe('greedy');
    const rows = await offline
      .locator('table.runs tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows.map((r) => r[1]).sort()).toEqual(['run-cold', 'run-hot']);
    expect(await offline.locator('table.runs th').last().textContent()).toBe(TEMPERATURE);
    expect(rows.map((r) => r.at(-1)).sort()).toEqual(['0', '1']);
    expect(await offline.locator('svg.chart g.bar').count()).toBe(2);
    await close();
  });
});
