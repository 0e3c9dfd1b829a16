/**
 * Lineage on the Models page in Chromium: each checkpoint of a training run shows its run, stage and step
 * (two runs' `step-0000002` tell apart), and the PPO policy worker's weight snapshots (`policy/v-N`) are
 * hidden unless asked for.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { saveCheckpoint } from '../../native/model/checkpoint/index';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { testTokenizer, tinyConfig, tinyWeights, TEST_LAB_VERSION } from '../helpers/checkpoint';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

function trainingRun(id: string, stage: string, folders: string[]): void {
  const dir = join(data, 'training', id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'run.json'),
    JSON.stringify({ schema: 't1lab.training-run/1', id, stage, createdAt: '2026-12-01T10:00:00Z', config: {} }),
  );
  writeFileSync(join(dir, 'status.json'), JSON.stringify({ state: 'completed', step: 2, totalSteps: 2 }));
  const config = tinyConfig();
  for (const f of folders)
    saveCheckpoint(join(dir, f), {
      config,
      tokenizer: testTokenizer().json,
      parameters: tinyWeights(config, 1),
      labVersion: TEST_LAB_VERSION,
    });
}

beforeAll(async () => {
  trainingRun('20261201-100000-ppo-a', 'ppo', ['checkpoints/step-0000002', 'policy/v-0000001', 'policy/v-0000002']);
  trainingRun('20261201-090000-sft-b', 'sft', ['checkpoints/step-0000002']);
  ({ serve, browser, page } = await openLabInChromium(data, { viewport: { width: 1024, height: 900 } }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

describe('Models: checkpoint lineage', () => {
  test('shows run, stage and step of each checkpoint and hides the policy snapshots', async () => {
    await page.goto(`${serve.url}#/models`);
    const rows = page.locator('[data-testid="model-row"][data-path*="/training/"]');
    await poll(() => rows.count()).toBe(2);
    const seen = await rows.evaluateAll((trs) =>
      trs.map((tr) =>
        ['name', 'run', 'stage', 'step'].map((k) => tr.querySelector(`td[data-key="${k}"]`)?.textContent),
      ),
    );
    expect(seen.sort()).toEqual([
      ['step-0000002', '20261201-090000-sft-b', 'sft', '2'],
      ['step-0000002', '20261201-100000-ppo-a', 'ppo', '2'],
    ]);
    expect(await page.locator('[data-testid="model-row"][data-path*="/policy/v-"]').count()).toBe(0);
    await page.getByTestId('show-snapshots').check();
    await poll(() => page.locator('[data-testid="model-row"][data-path*="/policy/v-"]').count()).toBe(2);
  });
});
