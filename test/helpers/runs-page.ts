/**
 * The Runs page in e2e tests: evaluation runs that resolve a given number of tasks, waiting for the runs
 * table to list them, and a report exported from the page and opened offline.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Download, Page } from 'playwright-core';
import type { RunManifest } from '../../electron/domain/runs';
import type { LabSuite } from './lab-suite';
import { writeRunFolder } from './runs';

/** An evaluation run of `tasks` tasks (task-0, task-1, …), one attempt each, the first `resolved` of them resolved. */
export interface EvalRunFixture {
  id: string;
  resolved: number;
  policySettings: RunManifest['config']['policySettings'];
}

/** The runs, created an hour apart in the order given, under the data folder's runs/. */
export async function writeEvalRuns(data: string, runs: readonly EvalRunFixture[], tasks = 4): Promise<void> {
  for (const [i, r] of runs.entries())
    await writeRunFolder(
      join(data, 'runs'),
      r.id,
      Array.from({ length: tasks }, (_, t) => ({ task: `task-${t}`, resolved: [t < r.resolved] })),
      { policySettings: r.policySettings, createdAt: `2026-12-01T0${i}:00:00Z` },
    );
}

/** The server lists its runs once it has read them: wait until the table has `count` rows. */
export async function waitForRunRows(page: Page, count: number): Promise<void> {
  await page
    .getByTestId('run-row')
    .nth(count - 1)
    .waitFor({ timeout: 20_000 });
}

/** A report exported from the open report form, as the browser downloaded it and as it opens offline. */
export interface ExportedReport {
  download: Download;
  html: string;
  /** The file opened in a browser context with no network. */
  offline: Page;
  close(): Promise<void>;
}

/** Export the open report form, save the file in the lab's home and open it in an offline context. */
export async function exportReportOffline(lab: LabSuite): Promise<ExportedReport> {
  const { page, browser } = lab;
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('report-export').click()]);
  const file = join(lab.home, 'report.html');
  await download.saveAs(file);
  const context = await browser.newContext({ offline: true });
  const offline = await context.newPage();
  await offline.goto(pathToFileURL(file).href);
  return { download, html: readFileSync(file, 'utf8'), offline, close: () => context.close() };
}
