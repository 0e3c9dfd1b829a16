/**
 * Every page at 1024 and 1440 px in Chromium, on a small lab (two evaluations, a training run): no page
 * scrolls sideways. With T1LAB_SCREENSHOTS=DIR each page is photographed into DIR as `page-NAME-WIDTH.png`
 * (docs/screenshots/ for the guide).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { closeLabInChromium, openLabInChromium } from '../helpers/browser';
import { writeRunFolder } from '../helpers/runs';
import type { ServeProcess } from '../helpers/serve';
import { makeTempDir } from '../helpers/tmp';
import { writeTrainingRun } from '../helpers/training-run';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const data = join(home.path, 'data');
const shots = process.env.T1LAB_SCREENSHOTS;
const TRAINING = '20261201-100000-ppo-demo';

beforeAll(async () => {
  const runs = join(data, 'runs');
  const tasks = Array.from({ length: 12 }, (_, i) => `task-${i}`);
  const category = (i: number) => ['debugging', 'security', 'file-operations'][i % 3]!;
  await writeRunFolder(
    runs,
    '20261201-080000-eval-nano-sft-a1b2',
    tasks.map((task, i) => ({ task, category: category(i), resolved: [i < 4, i < 3] })),
  );
  await writeRunFolder(
    runs,
    '20261201-090000-eval-nano-rl-dense-c3d4',
    tasks.map((task, i) => ({ task, category: category(i), resolved: [i < 9, i < 8] })),
  );
  writeTrainingRun(data, TRAINING, { steps: 40, rollouts: [20], checkpoints: [20, 40] });
  ({ serve, browser, page } = await openLabInChromium(data, {
    viewport: { width: 1024, height: 800 },
    deviceScaleFactor: 1,
  }));
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

const PAGES: { name: string; hash: string; ready: string }[] = [
  { name: 'tasks', hash: '#/tasks', ready: 'page-tasks' },
  { name: 'runs', hash: '#/runs/20261201-090000-eval-nano-rl-dense-c3d4', ready: 'run-detail' },
  { name: 'training', hash: `#/training/${TRAINING}`, ready: 'chart-grid' },
  {
    name: 'compare',
    hash: '#/compare/20261201-080000-eval-nano-sft-a1b2/20261201-090000-eval-nano-rl-dense-c3d4',
    ready: 'comparison',
  },
  { name: 'models', hash: '#/models', ready: 'page-models' },
  { name: 'system', hash: '#/system', ready: 'page-system' },
];

describe('Pages at 1024 and 1440 px', () => {
  for (const width of [1024, 1440]) {
    test(`no page scrolls sideways at ${width} px`, async () => {
      await page.setViewportSize({ width, height: 800 });
      for (const p of PAGES) {
        await page.goto(`${serve.url}${p.hash}`);
        await page.getByTestId(p.ready).first().waitFor({ timeout: 30_000 });
        await page.waitForTimeout(1_000);
        const [scroll, client, contentScroll, contentClient] = (await page.evaluate(
          "[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth, document.querySelector('.content')?.scrollWidth, document.querySelector('.content')?.clientWidth]",
        )) as number[];
        expect(scroll, `${p.name} at ${width}`).toBeLessThanOrEqual(client!);
        // The pages scroll inside .content: sideways there is sideways too.
        const wide =
          contentScroll! > contentClient!
            ? await page.evaluate(
                `[...document.querySelectorAll('.content *')].filter((e) => e.getBoundingClientRect().right > document.querySelector('.content').getBoundingClientRect().right + 1).slice(-5).map((e) => e.tagName + '.' + e.className + '[' + (e.getAttribute('data-testid') ?? '') + ']').join(' ')`,
              )
            : '';
        expect(contentScroll, `${p.name} at ${width} (.content): ${wide}`).toBeLessThanOrEqual(contentClient!);
        if (shots) {
          mkdirSync(shots, { recursive: true });
          await page.screenshot({ path: join(shots, `page-${p.name}-${width}.png`) });
        }
      }
    });
  }
});
